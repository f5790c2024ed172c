import type { ExitReason } from '../schema/trace.js';
import { contentText, toolCallsOf } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type Turn } from './conversation.js';
import { ImportError } from './importError.js';
import { isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { TraceFormat } from './traceFormat.js';

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

const isDemo = (v: unknown) => v === true || v === 'True' || v === 'true';

/** The first history message from `from` on whose `action` is the step's action (pairs by content, not index). */
function matchingMessage(messages: Rec[], from: number, action: string): number {
  const want = action.trim();
  for (let j = from; j < messages.length; j++) if ((str(messages[j]!['action']) ?? '').trim() === want) return j;
  return -1;
}

/** Steps from a history alone: each of the run's assistant messages with an `action`, observed by the message after it. */
function historySteps(history: unknown[]): Rec[] {
  const messages = history.filter((m): m is Rec => isRecord(m) && !isDemo(m['is_demo']));
  return messages.flatMap((m, i) => {
    if (m['role'] !== 'assistant' || typeof m['action'] !== 'string') return [];
    const next = messages[i + 1];
    const observation = next && next['role'] !== 'assistant' ? contentText(next['content']) : null;
    return [{ action: m['action'], thought: str(m['thought']) ?? contentText(m['content']), response: contentText(m['content']), observation }];
  });
}

/** `replay_config.agent.model.name` (the config is stored as JSON text or as an object). */
function replayModel(config: unknown): string | null {
  let c = config;
  if (typeof c === 'string') {
    try {
      c = JSON.parse(c);
    } catch {
      return null;
    }
  }
  const agent = isRecord(c) && isRecord(c['agent']) ? c['agent'] : null;
  return agent && isRecord(agent['model']) ? str(agent['model']['name']) : null;
}

/** SWE-agent `.traj`: trajectory[] steps (action, observation), info.exit_status, info.submission. */
export const sweAgentTraj: TraceFormat = {
  label: 'SWE-agent trajectory (.traj)',
  extensions: ['.traj'],
  // Some writers (and trimmed copies) keep only `history`: its assistant `action` messages are the steps.
  // Such a file may have no `info` either (SWE-agent's own demonstrations): then its status and submission are not known.
  sniff: ({ json }) =>
    isRecord(json) &&
    !('messages' in json) &&
    ((Array.isArray(json['trajectory']) && isRecord(json['info'])) ||
      (Array.isArray(json['history']) && json['history'].some((m) => isRecord(m) && m['role'] === 'assistant' && typeof m['action'] === 'string') && (isRecord(json['info']) || json['info'] === undefined))),
  parse: ({ json, fileName }) => {
    const traj = json as Rec;
    const info: Rec = isRecord(traj['info']) ? traj['info'] : {};
    const steps = Array.isArray(traj['trajectory']) ? traj['trajectory'].filter(isRecord) : historySteps(traj['history'] as unknown[]);
    // The history's assistant messages name the tool and its JSON arguments when function calling was used.
    // Demonstrations (`is_demo`, put_demos_in_history) are not the run's; a step may have no message of its own.
    const actions = (Array.isArray(traj['history']) ? traj['history'] : []).filter((m): m is Rec => isRecord(m) && m['role'] === 'assistant' && !isDemo(m['is_demo']));
    let cursor = 0;
    const turns: Turn[] = steps.map((step) => {
      const action = str(step['action']) ?? '';
      const found = matchingMessage(actions, cursor, action);
      if (found >= 0) cursor = found + 1;
      const call = found >= 0 ? toolCallsOf(actions[found]!)[0] : undefined;
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
      model: replayModel(traj['replay_config']),
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
