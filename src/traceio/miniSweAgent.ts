import type { ErrorType } from '../schema/trace.js';
import { contentText, toolCallsOf } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type ModelCallRecord, type ToolCallRecord, type Turn } from './conversation.js';
import { errorTypeFrom } from './errorTypes.js';
import { isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import { sweExitReason } from './sweAgent.js';
import type { TraceFormat } from './traceFormat.js';

type Rec = Record<string, unknown>;

const ACTION = /```(?:mswea_bash_command|bash)\s*\n([\s\S]*?)\n```/g;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OUTPUT = /<output>\n?([\s\S]*?)\n?<\/output>/;
/** The command a mini-swe-agent run submits with (old and new spelling). */
const SUBMIT = /(COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT)/;

const extraOf = (m: Rec | undefined): Rec => (m && isRecord(m['extra']) ? m['extra'] : {});
const unixIso = (v: unknown) => {
  const s = num(v);
  return s === null ? null : new Date(s * 1000).toISOString();
};

/** A user message that rejected the reply before anything ran (FormatError; `Tool call error` in tool-calling mode). */
const isFormatError = (m: Rec) => m['role'] === 'user' && (extraOf(m)['interrupt_type'] === 'FormatError' || /^(Format error|Tool call error)|EXACTLY ONE action/i.test(contentText(m['content']) ?? ''));

/** A model call from an assistant message, or from the `extra.response` a FormatError message keeps. */
function modelCall(content: string | null, extra: Rec, start: string | null): ModelCallRecord {
  const response = isRecord(extra['response']) ? extra['response'] : {};
  const usage = isRecord(response['usage']) ? response['usage'] : {};
  const end = unixIso(extra['timestamp']);
  return {
    ...emptyModel(),
    content,
    model: str(response['model']),
    inputTokens: num(usage['prompt_tokens'] ?? usage['input_tokens']),
    outputTokens: num(usage['completion_tokens'] ?? usage['output_tokens']),
    start: start ?? end,
    end,
  };
}

/** The commands a reply asked for: `extra.actions` (what really ran, whatever the action regex), else the bash blocks or tool calls. */
function requested(m: Rec, toolCalling: boolean): Array<{ id: string | null; command: string | null; name: string; arguments: string | null }> {
  const actions = extraOf(m)['actions'];
  if (Array.isArray(actions)) {
    const calls = toolCallsOf(m);
    return actions.filter(isRecord).map((a) => {
      const id = str(a['tool_call_id']);
      const call = calls.find((c) => c.id !== null && c.id === id);
      return { id, command: str(a['command']), name: call?.name ?? 'bash', arguments: JSON.stringify({ command: str(a['command']) }) };
    });
  }
  if (toolCalling) return toolCallsOf(m).map((c) => ({ id: c.id, command: null, name: c.name, arguments: c.arguments }));
  return [...(contentText(m['content']) ?? '').matchAll(ACTION)].map((x) => ({ id: null, command: x[1]!, name: 'bash', arguments: JSON.stringify({ command: x[1]! }) }));
}

/** An observation's outcome: return code, and a timeout (`returncode: -1`, TimeoutExpired) as COMMAND_TIMEOUT. */
function observe(tool: ToolCallRecord, m: Rec, text: string | null) {
  const extra = extraOf(m);
  let parsed: Rec = {};
  if (m['role'] === 'tool' && text?.trimStart().startsWith('{')) {
    try {
      const v = JSON.parse(text);
      if (isRecord(v)) parsed = v;
    } catch {
      // plain text output
    }
  }
  const code = num(extra['returncode']) ?? num(parsed['returncode']) ?? (text ? num(RETURN_CODE.exec(text)?.[1]) : null);
  const exception = str(extra['exception_info']) || str(parsed['exception_info']) || null;
  const exceptionType = str(extra['exception_type']);
  tool.result = str(extra['raw_output']) ?? str(parsed['output']) ?? (text === null ? null : (OUTPUT.exec(text)?.[1] ?? text));
  tool.exitCode = code;
  tool.end = unixIso(extra['timestamp']);
  if (code === 0 || (code === null && !exception)) {
    tool.ok = true;
    return;
  }
  tool.ok = false;
  tool.sourceErrorType = exceptionType;
  tool.errorType = exception || exceptionType ? errorTypeFrom(exceptionType, exception) : 'COMMAND_FAILED';
  tool.message = exception ?? `exit code ${code}`;
}

/**
 * A reply the agent refused before running anything (a FormatError: no action, several, an unknown
 * tool, bad arguments): a failed model turn, not tool calls; what it asked for is kept as attributes.
 */
function reject(turn: Turn, m: Rec): void {
  const text = contentText(m['content']) ?? 'the reply was rejected';
  const error = /<error>\s*([\s\S]*?)\s*<\/error>/.exec(text)?.[1] ?? text;
  const model = turn.model!;
  const asked = turn.tools.map((t) => t.name);
  Object.assign(model, {
    error,
    toolCalls: 0,
    extra: { ...model.extra, 'mini_swe_agent.format_error': true, 'error.type': formatErrorType(error), 'mini_swe_agent.rejected_actions': asked.length, ...(asked.length ? { 'mini_swe_agent.rejected_tools': asked } : {}) },
  });
  turn.tools = [];
}

const formatErrorType = (error: string): ErrorType => (/unknown tool/i.test(error) ? 'UNKNOWN_TOOL' : 'INVALID_ARGUMENTS');

/**
 * Turns from mini-swe-agent messages, text actions or tool calls: each assistant message is a model
 * call with the commands it asked for; the observations that follow answer them; a FormatError
 * message rejects them (nothing ran).
 */
function messageTurns(messages: Rec[], toolCalling: boolean): { turns: Turn[]; submitted: string | null } {
  const turns: Turn[] = [];
  let submitted: string | null = null;
  let lastTime: string | null = null;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const extra = extraOf(m);
    if (m['role'] === 'assistant') {
      const calls = requested(m, toolCalling);
      const model = modelCall(contentText(m['content']), extra, lastTime);
      lastTime = model.end ?? lastTime;
      const tools = calls.map((c) => ({ ...emptyTool(c.name), id: c.id, arguments: c.arguments, start: model.end }));
      const turn: Turn = { model: { ...model, toolCalls: calls.length }, tools };
      turns.push(turn);
      // The observations up to the next reply answer this one. Version 1 ran a text reply only with
      // exactly one bash block: with more, the next message is the format error, whatever it says.
      let open = [...tools];
      const rejectedByCount = !toolCalling && !Array.isArray(extra['actions']) && calls.length > 1;
      for (let j = i + 1; j < messages.length && messages[j]!['role'] !== 'assistant'; j++) {
        const o = messages[j]!;
        // A FormatError after this reply's observations is a later model call's (mini-swe-agent 2
        // records no assistant message for a rejected reply): it is read below, as its own turn.
        if (j > i + 1 && isFormatError(o)) break;
        if (isFormatError(o) || (rejectedByCount && o['role'] === 'user')) {
          reject(turn, o);
          open = [];
        } else if (o['role'] === 'exit' && String(extraOf(o)['exit_status'] ?? '').startsWith('Submitted')) {
          // The submit command ran with return code 0; mini-swe-agent then writes the exit message, not an observation.
          const t = open.find((x) => SUBMIT.test(calls[tools.indexOf(x)]?.command ?? x.arguments ?? ''));
          if (t) Object.assign(t, { ok: true, exitCode: 0, result: contentText(o['content']) ?? '' });
        } else if (o['role'] === 'tool' || (o['role'] === 'user' && !toolCalling)) {
          const id = str(o['tool_call_id']);
          const t = (id !== null ? open.find((x) => x.id === id) : undefined) ?? open[0];
          if (!t) continue;
          observe(t, o, contentText(o['content']));
          open = open.filter((x) => x !== t);
          lastTime = t.end ?? lastTime;
          const command = calls[tools.indexOf(t)]?.command ?? t.arguments ?? '';
          if (SUBMIT.test(command) && t.ok) submitted = t.result ?? '';
        }
      }
    } else if (extra['interrupt_type'] === 'FormatError' && (i === 0 || messages[i - 1]!['role'] !== 'assistant')) {
      // Only mini-swe-agent 2's own mark counts here: a task text may quote the format error's words.
      // mini-swe-agent 2 adds no assistant message for a rejected reply: the FormatError message is
      // all there is of that model call (its reply in extra.response, or the text in extra.model_response).
      const response = isRecord(extra['response']) ? extra['response'] : {};
      const choice = Array.isArray(response['choices']) && isRecord(response['choices'][0]) ? response['choices'][0] : {};
      const message = isRecord(choice['message']) ? choice['message'] : {};
      const model = modelCall(contentText(message['content']) ?? str(extra['model_response']), extra, lastTime);
      const turn: Turn = { model, tools: toolCallsOf(message).map((c) => ({ ...emptyTool(c.name), id: c.id, arguments: c.arguments })) };
      reject(turn, m);
      turns.push(turn);
      lastTime = model.end ?? lastTime;
    }
  }
  return { turns, submitted };
}

const isMessage = (m: unknown) => isRecord(m) && typeof m['role'] === 'string';
const isMiniV2 = (v: unknown) => isRecord(v) && Array.isArray(v['messages']) && (isRecord(v['info']) || typeof v['trajectory_format'] === 'string') && String(v['trajectory_format'] ?? 'mini').startsWith('mini');
const looksMini = (messages: unknown[]) => messages.some((m) => isRecord(m) && m['role'] === 'assistant' && typeof m['content'] === 'string' && new RegExp(ACTION.source).test(m['content']));

/** mini-swe-agent: the current `{info, messages, trajectory_format}` file and the older bare message list. */
export const miniSweAgent: TraceFormat = {
  label: 'mini-swe-agent trajectory (.traj.json: info/messages, or a bare message list)',
  extensions: ['.traj.json', '.json'],
  sniff: ({ json }) => isMiniV2(json) || (Array.isArray(json) && json.length > 0 && json.every(isMessage) && looksMini(json)),
  parse: ({ json, fileName }) => {
    const info: Rec = isRecord(json) && isRecord(json['info']) ? json['info'] : {};
    const messages = ((Array.isArray(json) ? json : (json as Rec)['messages']) as unknown[]).filter(isRecord);
    const toolCalling = messages.some((m) => m['role'] === 'tool' || Array.isArray(m['tool_calls']));
    const { turns, submitted } = messageTurns(messages, toolCalling);
    const status = str(info['exit_status']);
    // LimitsExceeded, TimeExceeded, RepeatedFormatError … write `submission: ""`: no answer was given.
    const infoSubmission = str(info['submission']);
    const submission = (infoSubmission && (status === null || status.toLowerCase().startsWith('submitted')) ? infoSubmission : null) ?? submitted;
    const exitReason = sweExitReason(status, submission !== null);
    const unknown: string[] = [];
    if (turns.every((t) => t.model?.end == null)) unknown.push('timing');
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
