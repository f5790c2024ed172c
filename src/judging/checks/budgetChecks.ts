import { stepCount, toolSpans } from '../../schema/trace.js';
import { activePriceTable, traceCost } from './priceTable.js';
import { result, type Check } from './checkResult.js';

/** Each limit the spec gives is checked; the reason lists every one that was exceeded. */
export const budget: Check<'budget'> = (trace, spec) => {
  const over: string[] = [];
  const within: string[] = [];
  const judge = (name: string, used: number, max: number | undefined, unit = '') => {
    if (max === undefined) return;
    (used > max ? over : within).push(`${name} ${used}${unit} of ${max}${unit}`);
  };
  judge('tokens', trace.usage.total_tokens, spec.max_tokens);
  const duration = Date.parse(trace.ended_at) - Date.parse(trace.started_at);
  if (spec.max_duration_ms !== undefined) judge('duration', Number.isFinite(duration) ? duration : 0, spec.max_duration_ms, ' ms');
  judge('tool calls', toolSpans(trace).length, spec.max_tool_calls);
  judge('steps', stepCount(trace), spec.max_steps);
  if (spec.max_cost_usd !== undefined) {
    const cost = traceCost(trace);
    if (cost === null) {
      over.push(`cost unknown: model ${trace.model.model} is not in the price table (as of ${activePriceTable().as_of}); give one with --price-table`);
    } else {
      const shown = (usd: number) => `$${usd.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`;
      (cost.usd > spec.max_cost_usd ? over : within).push(`cost ${shown(cost.usd)} of ${shown(spec.max_cost_usd)} (prices as of ${cost.as_of})`);
    }
  }
  return over.length === 0 ? result('budget', true, `within budget: ${within.join(', ')}`) : result('budget', false, `over budget: ${over.join(', ')}`);
};
