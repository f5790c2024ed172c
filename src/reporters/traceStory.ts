import { SPAN_KIND, attr, compressionAttr, llmAttr, stepOf as stepAttr, toolAttr, type Span, type Trace } from '../schema/trace.js';
import { modelLabel } from './modelLabel.js';
import { terminalSafe } from './terminalSafe.js';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The prompt and the final answer are printed whole up to this many characters (a hostile trace may hold megabytes). */
const TEXT_MAX = 20_000;
const whole = (text: string) => (text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX)}… (${text.length - TEXT_MAX} more characters)` : text);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

const stepOf = (span: Span): number => stepAttr(span) ?? 0;

function toolLines(span: Span): string[] {
  const a = toolAttr(span);
  const lines = [`  tool ${a.name} ${clip(a.arguments, 300)}`];
  const decision = a.decision ?? 'not judged';
  const approval = a.approvalRequired ? `, approval ${a.approved === true ? 'granted' : 'refused'}${a.approvalVia ? ` (${a.approvalVia})` : ''}` : '';
  lines.push(`    policy: ${decision}${a.riskLevel ? ` [${a.riskLevel} risk]` : ''}${approval}${a.riskReason ? ` — ${a.riskReason}` : ''}`);
  if (a.ok) {
    const preview = oneLine(a.result ?? '');
    lines.push(`    ok${a.executed ? '' : ' (not executed)'}${a.truncated ? ' (output truncated)' : ''}: ${clip(preview, 200)}`);
  } else {
    const suggestion = a.suggestion ? ` · suggestion: ${a.suggestion}` : '';
    lines.push(`    ${a.errorType ?? 'error'}: ${a.message ?? ''}${suggestion}`);
  }
  return lines;
}

/** Lines of a kept text, indented, at most this many from its end (the span keeps 4000 characters). */
const STDERR_LINES = 60;

/**
 * How an external agent ended, when that ended the trial: exit code, signal, the kill reason, the
 * error line and the stderr (or HTTP body) it left. Nothing for an agent that exited normally.
 */
function agentEndingLines(root: Span): string[] {
  const outcome = attr(root, 'agentOutcome');
  if (outcome === null || outcome === 'exited') return [];
  const exitCode = attr(root, 'agentExitCode');
  const signal = attr(root, 'agentSignal');
  const status = attr(root, 'agentHttpStatus');
  const how = [exitCode !== null ? `exit code ${exitCode}` : null, signal ? `signal ${signal}` : null, status !== null ? `HTTP ${status}` : null].filter(Boolean).join(', ');
  const lines = [`agent ended: ${outcome}${how ? ` (${how})` : ''}`];
  const problem = attr(root, 'agentProblem');
  if (problem) lines.push(`  ${outcome === 'timeout' ? 'kill reason' : 'problem'}: ${problem}`);
  const errorLine = attr(root, 'agentErrorLine');
  if (errorLine) lines.push(`  error line: ${errorLine}`);
  for (const [label, text] of [['stderr', attr(root, 'agentStderrTail')], ['HTTP body', attr(root, 'agentHttpBody')]] as const) {
    if (!text) continue;
    const kept = text.replace(/\n$/, '').split('\n');
    const shown = kept.slice(-STDERR_LINES);
    lines.push(`  ${label} (${kept.length > shown.length ? `last ${shown.length} of ${kept.length} lines kept` : 'as kept'}):`);
    lines.push(...shown.map((line) => `    ${line}`));
  }
  return lines;
}

/** A trace told as a readable story: each step, tool, arguments, decision, result, final answer. */
export function traceStory(trace: Trace): string {
  const lines: string[] = [];
  const seconds = (Date.parse(trace.ended_at) - Date.parse(trace.started_at)) / 1000;
  lines.push(`task ${trace.task_id} (epoch ${trace.epoch}), trace ${trace.trace_id}`);
  lines.push(`model: ${modelLabel(trace.model)}`);
  lines.push(`prompt: ${typeof trace.prompt === 'string' ? whole(trace.prompt) : '(not recorded in this trace)'}`);
  lines.push(`${trace.started_at} → ${trace.ended_at} (${Number.isFinite(seconds) ? `${seconds.toFixed(2)}s` : 'duration unknown'}), tokens ${trace.usage.input_tokens} in / ${trace.usage.output_tokens} out`);
  const root = trace.spans.find((s) => s.parent_id === null);
  const format = root ? attr(root, 'importFormat') : null;
  if (root && format) {
    const unknown = attr(root, 'importUnknown') ?? [];
    lines.push(`imported from ${format}${unknown.length ? `; the source cannot tell: ${unknown.join(', ')}` : ''}`);
  }

  // Grouped once: a trace of 100k spans must not be scanned once per step.
  const bySteps = new Map<number, Span[]>();
  for (const span of trace.spans) {
    if (span.kind === 'agent') continue;
    const step = stepOf(span);
    const group = bySteps.get(step);
    if (group) group.push(span);
    else bySteps.set(step, [span]);
  }
  for (const step of [...bySteps.keys()].sort((a, b) => a - b)) {
    lines.push('');
    lines.push(`step ${step}`);
    for (const span of bySteps.get(step)!) {
      if (span.kind === SPAN_KIND.compression) {
        const c = compressionAttr(span);
        lines.push(`  [compression] ${String(c.charsBefore)} → ${String(c.charsAfter)} chars, ${String(c.compressedResults)} tool results summarized`);
      } else if (span.kind === SPAN_KIND.llm) {
        const calls = llmAttr(span).toolCalls;
        const content = oneLine(llmAttr(span).content ?? '');
        lines.push(`  model: ${calls > 0 ? `${calls} tool call${calls > 1 ? 's' : ''}` : 'no tool call'}${content ? ` — "${clip(content, 200)}"` : ''}`);
        for (const event of span.events) lines.push(`    event: ${event.name}`);
      } else if (span.kind === SPAN_KIND.tool) {
        lines.push(...toolLines(span));
      }
    }
  }
  lines.push('');
  if (root) lines.push(...agentEndingLines(root));
  if (trace.error) lines.push(`run error ${trace.error.code}: ${trace.error.message}`);
  const answer = trace.final_answer.text;
  const shown = answer === null ? '(none)' : whole(answer);
  lines.push(`final answer (${trace.final_answer.exit_reason}): ${shown}`);
  // Outcome and custom checks ran on the final workspace after the agent finished.
  const checks = trace.spans.filter((s) => s.kind === SPAN_KIND.check);
  if (checks.length > 0) {
    lines.push('', 'after the run (on the final workspace)');
    for (const span of checks) {
      const command = attr(span, 'checkCommand');
      const exit = attr(span, 'checkExitCode');
      const error = attr(span, 'checkError');
      const output = attr(span, 'checkOutput');
      lines.push(`  check ${attr(span, 'checkType') ?? '?'}${command ? ` \`${command}\`` : ''}${exit !== null ? ` exited ${exit}` : ''}${error ? ` — error: ${clip(error, 300)}` : ''}`);
      if (output) lines.push(`    output: ${clip(output.replace(/\s+/g, ' '), 300)}`);
      else if (!command) lines.push(`    found: ${clip(attr(span, 'checkFacts') ?? '', 300)}`);
    }
  }
  return terminalSafe(lines.join('\n'));
}
