import { contentText, messagesToTurns } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type Turn } from './conversation.js';
import { isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import { sweExitReason } from './sweAgent.js';
import type { TraceFormat } from './types.js';

type Rec = Record<string, unknown>;

const ACTION = /```(?:mswea_bash_command|bash)\s*\n([\s\S]*?)\n```/;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OUTPUT = /<output>\n?([\s\S]*?)\n?<\/output>/;
/** The command a mini-swe-agent run submits with (old and new spelling). */
const SUBMIT = /(COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT)/;

/**
 * Text-action turns: each assistant message's bash block is a `bash` tool call, the next user
 * message its observation (`<returncode>` non-zero is a tool error).
 */
function textTurns(messages: Rec[]): { turns: Turn[]; submitted: string | null } {
  const turns: Turn[] = [];
  let submitted: string | null = null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m['role'] !== 'assistant') continue;
    const content = contentText(m['content']) ?? '';
    const command = ACTION.exec(content)?.[1] ?? null;
    const turn: Turn = { model: { ...emptyModel(), content, toolCalls: command ? 1 : 0 }, tools: [] };
    if (command !== null) {
      const next = messages[i + 1];
      const observation = next && next['role'] !== 'assistant' ? (contentText(next['content']) ?? '') : null;
      const extra = isRecord(next?.['extra']) ? next['extra'] : {};
      const code = num(extra['returncode']) ?? (observation ? num(RETURN_CODE.exec(observation)?.[1]) : null);
      const tool = { ...emptyTool('bash'), arguments: JSON.stringify({ command }), result: observation === null ? null : (OUTPUT.exec(observation)?.[1] ?? observation), exitCode: code, ok: observation === null ? null : code === null ? true : code === 0 };
      if (tool.ok === false) Object.assign(tool, { errorType: 'COMMAND_FAILED', message: `exit code ${code}` });
      turn.tools.push(tool);
      if (SUBMIT.test(command)) submitted = observation === null ? null : (tool.result ?? '');
    }
    turns.push(turn);
  }
  return { turns, submitted };
}

const isMessage = (m: unknown) => isRecord(m) && typeof m['role'] === 'string';
const isMiniV2 = (v: unknown) => isRecord(v) && Array.isArray(v['messages']) && (isRecord(v['info']) || typeof v['trajectory_format'] === 'string') && String(v['trajectory_format'] ?? 'mini').startsWith('mini');
const looksMini = (messages: unknown[]) => messages.some((m) => isRecord(m) && m['role'] === 'assistant' && typeof m['content'] === 'string' && ACTION.test(m['content']));

/** mini-swe-agent: the current `{info, messages, trajectory_format}` file and the older bare message list. */
export const miniSweAgent: TraceFormat = {
  label: 'mini-swe-agent trajectory (.traj.json: info/messages, or a bare message list)',
  extensions: ['.traj.json', '.json'],
  sniff: ({ json }) => isMiniV2(json) || (Array.isArray(json) && json.length > 0 && json.every(isMessage) && looksMini(json)),
  parse: ({ json, fileName }) => {
    const info: Rec = isRecord(json) && isRecord(json['info']) ? json['info'] : {};
    const messages = ((Array.isArray(json) ? json : (json as Rec)['messages']) as unknown[]).filter(isRecord);
    const toolCalling = messages.some((m) => m['role'] === 'tool' || Array.isArray(m['tool_calls']));
    const { turns, submitted } = toolCalling
      ? { turns: messagesToTurns(messages, { toolOutcome: outcome }), submitted: null }
      : textTurns(messages);
    const submission = str(info['submission']) ?? submitted;
    const status = str(info['exit_status']);
    const exitReason = sweExitReason(status, submission !== null);
    const unknown = ['timing'];
    if (submission === null) unknown.push('final answer');
    if (exitReason === 'unknown') unknown.push('exit reason');
    if (!isRecord(json)) unknown.push('exit status (old format)');
    const stats = isRecord(info['model_stats']) ? info['model_stats'] : {};
    const config = isRecord(info['config']) && isRecord(info['config']['model']) ? info['config']['model'] : {};
    return [{
      format: 'mini-swe-agent',
      taskId: stem(fileName),
      taskIdFrom: 'file',
      epoch: 0,
      traceId: null,
      model: str(config['model_name']),
      startedAt: null,
      endedAt: null,
      finalAnswer: submission,
      exitReason,
      turns,
      usage: null,
      unknown,
      runError: null,
      rootExtra: { ...(status ? { 'swe_agent.exit_status': status } : {}), ...(num(stats['api_calls']) !== null ? { 'swe_agent.api_calls': num(stats['api_calls'])! } : {}) },
    } satisfies Conversation];
  },
};

/** A tool-calling mini-swe-agent observation carries its return code in `extra`. */
function outcome(m: Rec) {
  const extra = isRecord(m['extra']) ? m['extra'] : {};
  const code = num(extra['returncode']);
  if (code === null) return {};
  return code === 0 ? { exitCode: 0, ok: true } : { exitCode: code, ok: false, errorType: 'COMMAND_FAILED' as const, message: `exit code ${code}` };
}
