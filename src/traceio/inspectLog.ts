import type { ExitReason } from '../schema/trace.js';
import { lastAnswer, messagesToTurns, contentText } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type Turn } from './conversation.js';
import { errorTypeFrom, succeededDespite } from './errorTypes.js';
import { ImportError } from './importError.js';
import { resolveAttachments } from './inspectAttachments.js';
import { asText, isRecord, num, parseJson, str, textOf } from './jsonText.js';
import type { TraceFormat } from './traceFormat.js';
import { readMember, zipMembers } from './zipArchive.js';

/** Most bytes an .eval archive may unpack to. */
const MAX_UNZIPPED = 1024 * 1024 * 1024;

type Rec = Record<string, unknown>;

function isoOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Where the transcript is: once a scorer starts, its model calls (a model-graded scorer) are not the agent's. */
interface Scoring {
  started: boolean;
  scorerSpans: Set<string>;
  /** Model events left out as the scorer's. */
  skipped: number;
}

/**
 * Scoring begins: the `scorers` span or a `span_begin` of type "scorer", an older `step` event of type
 * "scorer", or a final `score` event (an `intermediate` one is scored while the agent still runs).
 */
function scoringStarts(e: Rec, scoring: Scoring): void {
  if (e['event'] === 'span_begin' && (e['type'] === 'scorer' || (e['name'] === 'scorers' && !e['type']))) {
    scoring.started = true;
    if (typeof e['id'] === 'string') scoring.scorerSpans.add(e['id']);
  } else if ((e['event'] === 'step' && e['type'] === 'scorer' && e['action'] !== 'end') || (e['event'] === 'score' && e['intermediate'] !== true)) scoring.started = true;
}

/** Model events by uuid: how many records each call has and which is its last. */
function modelAttempts(events: unknown[]): Map<string, { count: number; last: Rec }> {
  const out = new Map<string, { count: number; last: Rec }>();
  for (const e of events) {
    if (!isRecord(e) || e['event'] !== 'model' || typeof e['uuid'] !== 'string') continue;
    const seen = out.get(e['uuid']);
    out.set(e['uuid'], { count: (seen?.count ?? 0) + 1, last: e });
  }
  return out;
}

/** Retries of one model call: Inspect's own `retries` count, else the extra records of it. */
const retriesOf = (e: Rec, records = 1) => num(e['retries']) ?? records - 1;

/** Model and tool events as turns (Inspect's transcript: `event: "model" | "tool"`); the scorer's are left out. */
function eventTurns(events: unknown[], turns: Turn[] = [], scoring: Scoring = { started: false, scorerSpans: new Set(), skipped: 0 }): Turn[] {
  const attempts = modelAttempts(events);
  for (const e of events) {
    if (!isRecord(e)) continue;
    // A model call written once per attempt (pending, retried) is one step: only its last record is read.
    const tries = e['event'] === 'model' && typeof e['uuid'] === 'string' ? attempts.get(e['uuid']) : undefined;
    if (tries && tries.last !== e) continue;
    scoringStarts(e, scoring);
    const inScorer = scoring.started || (typeof e['span_id'] === 'string' && scoring.scorerSpans.has(e['span_id']));
    if (inScorer && (e['event'] === 'model' || e['event'] === 'tool')) {
      if (e['event'] === 'model') scoring.skipped++;
      continue;
    }
    // Older logs nest a sub-agent's transcript inside `subtask` (and `step`) events.
    if ((e['event'] === 'subtask' || e['event'] === 'step') && Array.isArray(e['events'])) eventTurns(e['events'], turns, scoring);
    else if (e['event'] === 'model') {
      const output = isRecord(e['output']) ? e['output'] : {};
      const choice = Array.isArray(output['choices']) && isRecord(output['choices'][0]) ? output['choices'][0] : {};
      const message = isRecord(choice['message']) ? choice['message'] : {};
      const usage = isRecord(output['usage']) ? output['usage'] : {};
      const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'].length : 0;
      turns.push({
        model: {
          ...emptyModel(),
          content: contentText(message['content']) ?? str(output['completion']),
          toolCalls: calls,
          model: str(e['model']) ?? str(output['model']),
          inputTokens: num(usage['input_tokens']),
          outputTokens: num(usage['output_tokens']),
          start: isoOf(e['timestamp']),
          end: isoOf(e['completed']) ?? isoOf(e['timestamp']),
          error: str(e['error']),
          extra: {
            // A failed model call keeps what went wrong (the span status alone would not say).
            ...(str(e['error']) ? { 'error.message': str(e['error'])! } : {}),
            ...(retriesOf(e, tries?.count) > 0 ? { 'inspect.model.retries': retriesOf(e, tries?.count) } : {}),
          },
        },
        tools: [],
      });
    } else if (e['event'] === 'tool') {
      // `failed`: newer logs mark a tool that raised; the error then says how.
      const err = isRecord(e['error']) ? e['error'] : e['failed'] === true ? { type: 'unknown', message: 'the tool failed' } : null;
      const type = err ? str(err['type']) : null;
      // `truncated: [from, to]`: the output was cut to fit; the call itself succeeded.
      const errorType = err ? errorTypeFrom(type, str(err['message'])) : Array.isArray(e['truncated']) ? 'OUTPUT_TRUNCATED' : null;
      const tool = {
        ...emptyTool(str(e['function']) ?? '(unnamed)'),
        id: str(e['id']),
        arguments: asText(e['arguments']),
        result: typeof e['result'] === 'string' ? e['result'] : contentText(e['result']) ?? asText(e['result']),
        ok: err === null || succeededDespite(errorType),
        truncated: succeededDespite(errorType),
        errorType,
        sourceErrorType: type,
        message: err ? str(err['message']) : null,
        start: isoOf(e['timestamp']),
        end: isoOf(e['completed']) ?? isoOf(e['timestamp']),
      };
      if (turns.length === 0) turns.push({ model: null, tools: [] });
      turns.at(-1)!.tools.push(tool);
    }
  }
  return turns;
}

/** The sample's answer: `output.completion`, else the text of `output.choices[0].message.content`. */
function outputAnswer(output: Rec): string | null {
  const completion = str(output['completion']);
  if (completion) return completion;
  const choice = Array.isArray(output['choices']) && isRecord(output['choices'][0]) ? output['choices'][0] : null;
  const message = choice && isRecord(choice['message']) ? choice['message'] : null;
  return message ? contentText(message['content']) : null;
}

/** The model declined: stop_reason content_filter, or a text part marked `refusal`. */
function refused(output: Rec): boolean {
  const choice = Array.isArray(output['choices']) && isRecord(output['choices'][0]) ? output['choices'][0] : {};
  const message = isRecord(choice['message']) ? choice['message'] : {};
  const parts = Array.isArray(message['content']) ? message['content'] : [];
  return choice['stop_reason'] === 'content_filter' || parts.some((p) => isRecord(p) && p['refusal'] === true);
}

function sampleConversation(rawSample: Rec, evalInfo: Rec, stats: Rec, fileName: string): Conversation {
  const sample = resolveAttachments(rawSample);
  const events = Array.isArray(sample['events']) ? sample['events'] : [];
  const fromEvents = events.some((e) => isRecord(e) && (e['event'] === 'model' || e['event'] === 'tool'));
  const scoring: Scoring = { started: false, scorerSpans: new Set(), skipped: 0 };
  const turns = fromEvents ? eventTurns(events, [], scoring) : messagesToTurns(Array.isArray(sample['messages']) ? sample['messages'] : []);
  const unknown: string[] = [];
  if (!fromEvents) unknown.push('timing');
  if (turns.every((t) => t.model === null)) unknown.push('model calls');

  const output = isRecord(sample['output']) ? sample['output'] : null;
  const hasChoice = output !== null && Array.isArray(output['choices']) && output['choices'].length > 0;
  const finalAnswer = hasChoice ? (outputAnswer(output!) ?? lastAnswer(turns)) : null;
  const error = sample['error'];
  const errorMessage = error ? ((isRecord(error) ? str(error['message']) : asText(error)) ?? 'the sample failed') : null;
  const limit = isRecord(sample['limit']) ? sample['limit'] : null;
  let exitReason: ExitReason;
  if (error) exitReason = 'error';
  else if (limit) exitReason = 'max_steps';
  else if (hasChoice && refused(output!)) exitReason = 'refused';
  else if (hasChoice) exitReason = 'completed';
  else {
    exitReason = 'unknown';
    unknown.push('final answer', 'exit reason');
  }
  const usage = isRecord(sample['model_usage']) ? Object.values(sample['model_usage']).filter(isRecord) : [];
  const id = sample['id'];
  if (id === undefined || id === null) throw new ImportError('BAD_FORMAT', fileName, 'an Inspect sample has no id');
  const epoch = num(sample['epoch']);
  const times = events.filter(isRecord).map((e) => isoOf(e['timestamp'])).filter((t): t is string => t !== null);
  return {
    format: 'inspect',
    taskId: String(id),
    taskIdFrom: 'trace',
    // Inspect counts epochs from 1, tracegate from 0.
    epoch: epoch !== null && epoch >= 1 ? epoch - 1 : 0,
    traceId: null,
    model: str(evalInfo['model']),
    // Without events: the sample's own times, else the eval's (then only the day is certain).
    startedAt: times[0] ?? isoOf(sample['started_at']) ?? isoOf(stats['started_at']),
    endedAt: times.at(-1) ?? isoOf(sample['completed_at']) ?? isoOf(stats['completed_at']),
    finalAnswer,
    exitReason,
    turns,
    // model_usage counts a model-graded scorer's calls too: then the agent's own events are summed instead.
    usage: usage.length && scoring.skipped === 0 ? { input: usage.reduce((s, u) => s + (num(u['input_tokens']) ?? 0), 0), output: usage.reduce((s, u) => s + (num(u['output_tokens']) ?? 0), 0) } : null,
    unknown,
    runError: errorMessage !== null ? { code: 'AGENT_ERROR', message: errorMessage } : null,
    rootExtra: {
      'inspect.task': str(evalInfo['task']) ?? '',
      'inspect.sample_id': String(id),
      ...(str(evalInfo['eval_id']) ? { 'inspect.eval_id': str(evalInfo['eval_id'])! } : {}),
      ...(limit ? { 'inspect.limit': asText(limit) ?? '' } : {}),
      ...(errorMessage !== null ? { 'inspect.error': errorMessage } : {}),
    },
  };
}

const isInspectLog = (v: unknown) => isRecord(v) && isRecord(v['eval']) && ('samples' in v || 'status' in v) && typeof v['version'] === 'number';

export const inspectJson: TraceFormat = {
  label: 'Inspect AI log (.json)',
  extensions: ['.json'],
  sniff: ({ json }) => isInspectLog(json),
  parse: ({ json, fileName }) => {
    const log = json as Rec;
    const samples = Array.isArray(log['samples']) ? log['samples'].filter(isRecord) : [];
    if (samples.length === 0) throw new ImportError('EMPTY', fileName, 'the Inspect log has no samples (was it written with --no-log-samples?)');
    return samples.map((s) => sampleConversation(s, log['eval'] as Rec, isRecord(log['stats']) ? log['stats'] : {}, fileName));
  },
};

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

export const inspectEval: TraceFormat = {
  label: 'Inspect AI log (.eval zip: header.json, samples/*.json)',
  extensions: ['.eval'],
  sniff: ({ bytes }) => ZIP_MAGIC.every((b, i) => bytes[i] === b),
  parse: ({ bytes, fileName }) => {
    const wanted = zipMembers(bytes, fileName).filter((m) => m.name === 'header.json' || m.name === '_journal/start.json' || /^samples\/[^/]+\.json$/.test(m.name));
    // The members share one budget: what a member really unpacks to counts, whatever its header claims.
    let used = 0;
    const files: Record<string, Uint8Array> = {};
    for (const m of wanted) {
      files[m.name] = readMember(bytes, m, fileName, MAX_UNZIPPED - used);
      used += files[m.name]!.length;
    }
    const headerBytes = files['header.json'] ?? files['_journal/start.json'];
    if (!headerBytes) throw new ImportError('BAD_FORMAT', fileName, 'a zip without header.json is not an Inspect .eval log');
    const header = parseJson(textOf(headerBytes), `${fileName}:header.json`);
    if (!isRecord(header) || !isRecord(header['eval'])) throw new ImportError('BAD_FORMAT', fileName, 'header.json has no eval section');
    const names = Object.keys(files).filter((n) => n.startsWith('samples/')).sort();
    if (names.length === 0) throw new ImportError('EMPTY', fileName, 'the .eval archive has no samples/*.json');
    return names.map((n) => {
      const sample = parseJson(textOf(files[n]!), `${fileName}:${n}`);
      if (!isRecord(sample)) throw new ImportError('BAD_FORMAT', `${fileName}:${n}`, 'a sample must be a JSON object');
      return sampleConversation(sample, header['eval'] as Rec, isRecord(header['stats']) ? header['stats'] : {}, `${fileName}:${n}`);
    });
  },
};
