import type { ExitReason } from '../schema/trace.js';
import { toolCallsOf } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type Turn } from './conversation.js';
import { ImportError } from './importError.js';
import { isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { TraceFormat } from './types.js';

type Rec = Record<string, unknown>;

/** SWE-agent's exit statuses: `submitted` (also `submitted (exit_cost)` …), `exit_cost`, `exit_context`, `exit_format`, `exit_error`, … */
export function sweExitReason(status: string | null, hasAnswer: boolean): ExitReason {
  if (status === null) return hasAnswer ? 'completed' : 'unknown';
  const s = status.toLowerCase();
  if (s.startsWith('submitted')) return 'completed';
  if (/cost|context|step|limit|time/.test(s)) return 'max_steps';
  if (/error|format|fail/.test(s)) return 'error';
  return 'unknown';
}

/** SWE-agent `.traj`: trajectory[] steps (action, observation), info.exit_status, info.submission. */
export const sweAgentTraj: TraceFormat = {
  label: 'SWE-agent trajectory (.traj)',
  extensions: ['.traj'],
  sniff: ({ json }) => isRecord(json) && Array.isArray(json['trajectory']) && isRecord(json['info']) && !('messages' in json),
  parse: ({ json, fileName }) => {
    const traj = json as Rec;
    const info = traj['info'] as Rec;
    const steps = (traj['trajectory'] as unknown[]).filter(isRecord);
    // The history's assistant messages name the tool and its JSON arguments when function calling was used.
    const actions = (Array.isArray(traj['history']) ? traj['history'] : []).filter((m): m is Rec => isRecord(m) && m['role'] === 'assistant');
    const turns: Turn[] = steps.map((step, i) => {
      const action = str(step['action']) ?? '';
      const call = actions[i] ? toolCallsOf(actions[i]!)[0] : undefined;
      const seconds = num(step['execution_time']);
      const tool = {
        ...emptyTool(call?.name ?? (action.trim().split(/\s+/)[0] || '(none)')),
        id: call?.id ?? null,
        arguments: call?.arguments ?? JSON.stringify({ command: action }),
        result: str(step['observation']),
        ok: true,
        extra: { 'swe_agent.action': action, ...(seconds !== null ? { 'swe_agent.execution_time_s': seconds } : {}) },
      };
      return { model: { ...emptyModel(), content: str(step['response']) ?? str(step['thought']), toolCalls: action.trim() ? 1 : 0 }, tools: action.trim() ? [tool] : [] };
    });
    if (steps.length === 0 && !info['exit_status']) throw new ImportError('EMPTY', fileName, 'the trajectory has no steps and no exit status');
    const stats = isRecord(info['model_stats']) ? info['model_stats'] : {};
    const submission = str(info['submission']);
    const status = str(info['exit_status']);
    const exitReason = sweExitReason(status, submission !== null);
    const unknown = ['timing', 'tool exit codes (SWE-agent does not record them; calls count as succeeded)'];
    if (submission === null) unknown.push('final answer');
    if (exitReason === 'unknown') unknown.push('exit reason');
    const env = str(traj['environment']);
    return [{
      format: 'swe-agent',
      taskId: stem(fileName),
      taskIdFrom: 'file',
      epoch: 0,
      traceId: null,
      model: null,
      startedAt: null,
      endedAt: null,
      finalAnswer: submission,
      exitReason,
      turns,
      usage: stats['tokens_sent'] !== undefined ? { input: num(stats['tokens_sent']) ?? 0, output: num(stats['tokens_received']) ?? 0 } : null,
      unknown,
      runError: null,
      rootExtra: { 'swe_agent.exit_status': status ?? '', ...(env ? { 'swe_agent.environment': env } : {}) },
    } satisfies Conversation];
  },
};
