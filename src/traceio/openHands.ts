import { emptyModel, emptyTool, type Conversation, type ToolCallRecord, type Turn } from './conversation.js';
import { errorTypeFrom } from './errorTypes.js';
import { asText, isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { SniffInput, TraceFormat } from './traceFormat.js';

type Rec = Record<string, unknown>;

const isoOf = (v: unknown) => {
  if (typeof v !== 'string') return null;
  // OpenHands writes local ISO times without a zone (`2025-01-27T23:16:56.951967`): read as UTC.
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** An event of an OpenHands (V0) trajectory: `{id, source, action|observation, …}`. */
const isEvent = (v: unknown) => isRecord(v) && typeof v['source'] === 'string' && ('action' in v || 'observation' in v) && 'id' in v;

/** Actions that are no tool call: messages and the bookkeeping the agent loop writes. */
const NOT_TOOLS = new Set(['message', 'finish', 'system', 'change_agent_state', 'recall', 'condensation', 'null']);

/**
 * OpenHands trajectory events (the UI's "download trajectory", `{trajectory: […]}`, or an
 * evaluation's output.jsonl whose lines keep them in `history`). A model call is one
 * `tool_call_metadata.model_response.id` (one reply may hold several tool calls), or an agent
 * message with no metadata; tool actions are answered by observations whose `cause` is their id;
 * an `error` observation or a non-zero exit code fails the call; `finish` carries the answer.
 */
function trajectoryConversation(events: Rec[], taskId: string, taskIdFrom: 'trace' | 'file', runError: string | null): Conversation {
  const turns: Turn[] = [];
  const byResponse = new Map<string, Turn>();
  const byAction = new Map<string, ToolCallRecord>();
  let finalAnswer: string | null = null;
  let finished = false;
  let stateError: string | null = null;
  let model: string | null = null;
  for (const e of events) {
    const time = isoOf(e['timestamp']);
    const meta = isRecord(e['tool_call_metadata']) ? e['tool_call_metadata'] : null;
    const response = meta && isRecord(meta['model_response']) ? meta['model_response'] : null;
    if (e['source'] === 'agent' && typeof e['action'] === 'string') {
      const action = e['action'];
      const args = isRecord(e['args']) ? e['args'] : {};
      if (!response && action !== 'message' && action !== 'finish') continue;
      const responseId = str(response?.['id']);
      let turn = responseId ? byResponse.get(responseId) : undefined;
      if (!turn) {
        const usage = response && isRecord(response['usage']) ? response['usage'] : {};
        model = str(response?.['model']) ?? model;
        turn = { model: { ...emptyModel(), model: str(response?.['model']), content: str(args['thought']) || str(args['content']) || null, inputTokens: num(usage['prompt_tokens']), outputTokens: num(usage['completion_tokens']), start: time, end: time }, tools: [] };
        if (responseId) byResponse.set(responseId, turn);
        turns.push(turn);
      }
      if (action === 'finish') {
        finished = true;
        finalAnswer = str(args['final_thought']) || str(e['message']) || str(isRecord(args['outputs']) ? args['outputs']['content'] : null) || null;
      } else if (action === 'message') finalAnswer = str(args['content']) ?? str(e['message']);
      else if (!NOT_TOOLS.has(action)) {
        const tool: ToolCallRecord = { ...emptyTool(str(meta?.['function_name']) ?? action), id: str(meta?.['tool_call_id']), arguments: asText(withoutThought(args)), start: time };
        turn.tools.push(tool);
        turn.model!.toolCalls++;
        byAction.set(String(e['id']), tool);
        finalAnswer = null;
      }
    } else if (typeof e['observation'] === 'string') {
      if (e['observation'] === 'agent_state_changed' && isRecord(e['extras']) && e['extras']['agent_state'] === 'error') stateError = str(e['extras']['reason']) || str(e['message']) || 'the agent stopped with an error';
      const tool = e['cause'] !== undefined && e['cause'] !== null ? byAction.get(String(e['cause'])) : undefined;
      if (!tool || tool.ok !== null) continue;
      const extras = isRecord(e['extras']) ? e['extras'] : {};
      const exitCode = isRecord(extras['metadata']) ? num(extras['metadata']['exit_code']) : null;
      const failed = e['observation'] === 'error' || (exitCode !== null && exitCode !== 0 && exitCode !== -1) || e['success'] === false;
      Object.assign(tool, { result: str(e['content']) ?? '', exitCode, end: time, ok: !failed });
      if (failed) Object.assign(tool, { errorType: errorTypeFrom(str(e['content'])), message: exitCode !== null && exitCode !== 0 ? `exit code ${exitCode}` : (str(e['content']) ?? str(e['message'])) });
    }
  }
  const error = runError ?? stateError;
  const unknown: string[] = [];
  if (finalAnswer === null) unknown.push('final answer');
  if ([...byAction.values()].some((t) => t.ok === null)) unknown.push('tool results');
  const times = events.map((e) => isoOf(e['timestamp'])).filter((t): t is string => t !== null);
  return {
    format: 'openhands',
    taskId,
    taskIdFrom,
    epoch: 0,
    traceId: null,
    model,
    startedAt: times[0] ?? null,
    endedAt: times.at(-1) ?? null,
    finalAnswer,
    exitReason: error !== null ? 'error' : finished || finalAnswer !== null ? 'completed' : 'unknown',
    turns,
    usage: null,
    unknown,
    runError: error !== null ? { code: 'AGENT_ERROR', message: error } : null,
  };
}

/** The action's arguments without its `thought` (the model's text, kept on the model call). */
function withoutThought(args: Rec): Rec {
  const { thought: _, ...rest } = args;
  return rest;
}

interface Run {
  events: Rec[];
  taskId: string | null;
  error: string | null;
}

/** The runs of a file: one list of events, `{trajectory}`, or evaluation lines `{instance_id, history, error}`. */
function runsOf(input: SniffInput): Run[] | null {
  const events = (v: unknown) => (Array.isArray(v) && v.length > 0 && v.every(isEvent) ? (v as Rec[]) : null);
  const j = input.json;
  const direct = events(j) ?? (isRecord(j) ? events(j['trajectory']) : null);
  if (direct) return [{ events: direct, taskId: null, error: null }];
  const lines = input.jsonLines ?? (isRecord(j) ? [j] : []);
  const runs = lines.map((l) => (isRecord(l) && events(l['history']) ? { events: events(l['history'])!, taskId: str(l['instance_id']), error: str(l['error']) } : null));
  return runs.length > 0 && runs.every((r) => r !== null) ? (runs as Run[]) : null;
}

export const openHands: TraceFormat = {
  label: 'OpenHands trajectory (events with action/observation; evaluation output.jsonl history)',
  extensions: ['.json', '.jsonl'],
  sniff: (input) => runsOf(input) !== null,
  parse: (input) =>
    runsOf(input)!.map((run, i, all) =>
      trajectoryConversation(run.events, run.taskId ?? (all.length > 1 ? `${stem(input.fileName)}-${i + 1}` : stem(input.fileName)), run.taskId ? 'trace' : 'file', run.error),
    ),
};
