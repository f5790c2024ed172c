import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { AGENT_RUN_ERROR } from '../schema/runErrorCodes.js';
import { ChatMessagesSchema, describeIssues } from '../schema/agentIo.js';
import { cutAtToken, patternRedactor, type Redactor } from '../schema/redact.js';
import { requestHash } from '../schema/requestKey.js';
import { ChunkAccumulator, completionBody, providerErrorOf, replyFromCompletion, SseParser, sseBody, type ChatReply } from './chatReply.js';
import type { CassetteRecorder, CassetteReplay } from './cassetteStore.js';
import type { Exchange, TrialTraffic } from './exchange.js';
import { KEY_MASK, KeyScrubber, scrubKeyBytes } from './keyScrubber.js';
import { forwardUpstream, type Upstream, type UpstreamBudget } from './upstream.js';
import type { EndpointLimiter } from '../provider/index.js';

const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * A request as its cassette key sees it. A recorded reply is stored redacted (the run's redactor),
 * so on replay the agent sends that redacted text back: the agent's earlier replies (assistant
 * messages) are keyed as stored. Everything else sees only the fixed patterns (patternRedactor): the
 * recording machine's environment values in a prompt or a tool result would key it differently on
 * every other machine.
 */
function cassetteKeyed<R extends { messages: ChatRequest['messages'] }>(request: R, stored: Redactor): R {
  return patternRedactor.deep({ ...request, messages: request.messages.map((m) => (m.role === 'assistant' ? stored.deep(m) : m)) });
}

const FunctionToolSchema = z.looseObject({ function: z.looseObject({ name: z.string(), description: z.string().optional(), parameters: z.unknown() }) });
/** A `custom` tool (free-form input, GPT-5): its name and format in its own field. */
const CustomToolSchema = z.looseObject({ type: z.literal('custom'), custom: z.looseObject({ name: z.string(), description: z.string().optional(), format: z.unknown() }) });
type FunctionTool = z.infer<typeof FunctionToolSchema>;
type CustomTool = z.infer<typeof CustomToolSchema>;

const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: ChatMessagesSchema,
  tools: z.array(z.union([FunctionToolSchema, CustomToolSchema])).optional(),
  temperature: z.number().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;
const isCustom = (t: FunctionTool | CustomTool): t is CustomTool => t['type'] === 'custom' && 'custom' in t;
/** A tool as the request key sees it: a custom tool's format stands where a function's parameters do. */
const keyedTool = (t: FunctionTool | CustomTool): FunctionTool =>
  isCustom(t) ? { function: { name: t.custom.name, description: t.custom.description, parameters: t.custom.format } } : t;

/** Agent headers passed upstream: they pick the account's organization, project or beta features. */
const FORWARDED_HEADERS = ['openai-organization', 'openai-project', 'openai-beta'] as const;

export interface CaptureProxyOptions {
  upstream: Upstream | null;
  replay: CassetteReplay | null;
  recorder: CassetteRecorder | null;
  /** Adaptive concurrency for the upstream endpoint (the run's -j as its ceiling). */
  limiter?: EndpointLimiter | undefined;
  /**
   * The run's redactor: every error body and message the proxy passes to an agent goes through it
   * (an upstream 401 may echo the key). The upstream key itself is masked in everything passed back.
   */
  redactor?: Redactor | undefined;
}

/** A trial's budget when its adapter names none. */
export const DEFAULT_TRIAL_BUDGET_MS = 120_000;

/** One trial's view of the proxy: its own base URL and dummy key, and the traffic seen on them. */
export interface TrialChannel {
  baseUrl: string;
  apiKey: string;
  /** Stops accepting calls on this trial's path and hands back what was seen. */
  close(): TrialTraffic;
}

interface TrialState extends TrialTraffic {
  taskId: string;
  apiKey: string;
  calls: number;
  open: boolean;
  controller: AbortController;
  budget: UpstreamBudget;
  /** How often this trial has sent each request (by hash): the same request's replies go in order. */
  sent: Map<string, number>;
  /**
   * The run error is a provider fault the agent may get past by calling again (a stream that broke
   * or carried an error, retries that ran out): a later whole reply clears it, and the trial is
   * judged on what the agent then did. The failed call stays in the trace as an error span.
   */
  absorbable: boolean;
}

/**
 * The capture proxy: a loopback OpenAI-compatible endpoint for one run. Every trial gets its own
 * path `/t/<token>/v1` and a dummy key, so concurrent trials never mix and the real key stays here.
 * It answers `POST …/chat/completions` (streaming and not) and `GET …/models` from the upstream,
 * from cassettes, or, with neither, with an error that names task and step.
 */
export class CaptureProxy {
  private server: Server | null = null;
  private url = '';
  private readonly trials = new Map<string, TrialState>();
  /** Every model name the agents asked for, so a run with no --model can say which one it used. */
  readonly modelsSeen = new Set<string>();

  constructor(private readonly options: CaptureProxyOptions) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.sendError(res, 500, `tracegate capture proxy: ${(error as Error).message}`);
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const trial of this.trials.values()) trial.controller.abort();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** `budget`: the trial's deadline (and park): upstream faults are retried until then. */
  openTrial(taskId: string, budget: Omit<UpstreamBudget, 'limiter'> = { deadline: Date.now() + DEFAULT_TRIAL_BUDGET_MS }): TrialChannel {
    const token = randomBytes(12).toString('hex');
    const state: TrialState = {
      taskId,
      apiKey: `tracegate-trial-${token}`,
      calls: 0,
      open: true,
      exchanges: [],
      runError: null,
      controller: new AbortController(),
      sent: new Map(),
      absorbable: false,
      budget: { ...budget, limiter: this.options.limiter },
    };
    this.trials.set(token, state);
    return {
      baseUrl: `${this.url}/t/${token}/v1`,
      apiKey: state.apiKey,
      close: () => {
        state.open = false;
        state.controller.abort();
        this.trials.delete(token);
        return { exchanges: state.exchanges, runError: state.runError };
      },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/t\/([0-9a-f]{24})(\/.*)?$/.exec((req.url ?? '').split('?')[0]!);
    const trial = match ? this.trials.get(match[1]!) : undefined;
    if (!trial || !trial.open) return void this.sendError(res, 404, 'tracegate capture proxy: unknown or finished trial path');
    const auth = req.headers['authorization'];
    if (auth !== undefined && auth !== `Bearer ${trial.apiKey}`) {
      return void this.sendError(res, 401, 'tracegate capture proxy: this is not the key of this trial (OPENAI_API_KEY)');
    }
    const route = (match![2] ?? '/').replace(/\/+$/, '');
    if (req.method === 'GET' && route.endsWith('/models')) return this.models(trial, res);
    if (req.method === 'POST' && route.endsWith('/chat/completions')) return this.chat(trial, req, res);
    return void this.sendError(res, 404, `tracegate capture proxy: ${req.method} ${route} is not proxied (only POST chat/completions and GET models)`);
  }

  /** Text on its way to an agent or a trace: the upstream key masked, then the run's redaction. */
  private scrub(text: string): string {
    const key = this.options.upstream?.apiKey;
    const masked = key ? text.split(key).join(KEY_MASK) : text;
    return this.options.redactor ? this.options.redactor.text(masked) : masked;
  }

  private sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: this.scrub(message), type: 'tracegate_proxy_error', code: null, param: null } }));
  }

  private async models(trial: TrialState, res: ServerResponse): Promise<void> {
    const { upstream, replay } = this.options;
    if (upstream) {
      try {
        const response = await forwardUpstream(upstream, '/models', { method: 'GET', signal: trial.controller.signal }, trial.budget);
        const body = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
        res.end(response.ok ? scrubKeyBytes(body, upstream.apiKey) : this.scrub(body.toString('utf8')));
      } catch (error) {
        this.sendError(res, 502, `tracegate capture proxy: models: ${(error as Error).message}`);
      }
      return;
    }
    const ids = replay ? replay.models(trial.taskId) : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'tracegate-cassette' })) }));
  }

  private async chat(trial: TrialState, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return void this.sendError(res, 413, `tracegate capture proxy: request over ${MAX_REQUEST_BYTES} bytes`, { connection: 'close' });
    let parsed: ChatRequest;
    try {
      const result = ChatRequestSchema.safeParse(JSON.parse(raw));
      if (!result.success) return void this.sendError(res, 400, `tracegate capture proxy: not a chat-completions request: ${describeIssues(result.error)}`);
      parsed = result.data;
    } catch (error) {
      return void this.sendError(res, 400, `tracegate capture proxy: request body is not JSON: ${(error as Error).message}`);
    }
    const step = ++trial.calls;
    this.modelsSeen.add(parsed.model);
    const exchange: Exchange = {
      index: step,
      started: new Date().toISOString(),
      ended: '',
      model: parsed.model,
      messages: parsed.messages,
      toolNames: (parsed.tools ?? []).map((t) => keyedTool(t).function.name),
      streamed: parsed.stream === true,
      source: 'none',
      reply: null,
      error: null,
    };
    trial.exchanges.push(exchange);
    // `actionFirst`: a message that starts with what the user must do keeps the task and step for its end.
    const fail = (code: string, message: string, absorbable = false, actionFirst = false) => {
      const full = this.scrub(actionFirst ? `${message} (task ${trial.taskId}, step ${step})` : `task ${trial.taskId}, step ${step}: ${message}`);
      // The first fault is the trial's, except that one the agent may still get past gives way to one it cannot.
      if (!trial.runError || (trial.absorbable && !absorbable)) Object.assign(trial, { runError: { code, message: full }, absorbable });
      exchange.error = full;
      // x-should-retry: the openai clients would otherwise retry a fault no retry can fix.
      this.sendError(res, 502, `tracegate: ${full}`, { 'x-should-retry': 'false' });
    };
    const { replay, upstream, recorder } = this.options;
    // The cassette key (a redaction and a hash of the whole conversation) only when a cassette is read or written.
    const hash = replay || recorder ? requestHash(cassetteKeyed({ ...parsed, tools: parsed.tools?.map(keyedTool) }, this.options.redactor ?? patternRedactor)) : '';
    const occurrence = (trial.sent.get(hash) ?? 0) + 1;
    trial.sent.set(hash, occurrence);
    try {
      if (replay) {
        const found = replay.find(trial.taskId, hash, step, occurrence);
        if (typeof found === 'string') return fail(AGENT_RUN_ERROR.CASSETTE_MISS, found);
        exchange.source = 'replayed';
        exchange.reply = found;
        return void sendReply(res, found, parsed, step);
      }
      if (!upstream) {
        return fail(AGENT_RUN_ERROR.NO_MODEL, 'pass --base-url URL (or OPENAI_BASE_URL) for a live endpoint, or --cassettes DIR to replay: the agent called a model, but this run has none', false, true);
      }
      exchange.source = 'live';
      // The query string (Azure's api-version) and the account headers go upstream with the call.
      const query = /\?.*$/.exec(req.url ?? '')?.[0] ?? '';
      const headers = Object.fromEntries(FORWARDED_HEADERS.flatMap((h) => (typeof req.headers[h] === 'string' ? [[h, req.headers[h]]] : [])));
      const response = await forwardUpstream(upstream, `/chat/completions${query}`, { method: 'POST', body: raw, headers, signal: trial.controller.signal, stream: parsed.stream === true }, trial.budget);
      if (!response.ok) {
        // Provider faults (429, 5xx, hangs, resets) were retried within the trial's budget, and
        // one that outlasted it threw ProviderFaultError (PROVIDER_ERROR, below).
        const text = this.scrub(await response.text());
        const refusal = configurationFault(response.status, text);
        if (refusal) return fail(AGENT_RUN_ERROR.PROVIDER_ERROR, refusal);
        // Another 4xx is the agent's own request being refused: pass it on and let the agent deal with it.
        exchange.error = `upstream answered HTTP ${response.status}: ${cutAtToken(text, 300)}`;
        res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' }).end(text);
        return;
      }
      const outcome = (response.headers.get('content-type') ?? '').includes('text/event-stream')
        ? await pipeStream(response, res, upstream.apiKey, trial.budget.deadline)
        : await passCompletion(response, res, upstream.apiKey);
      if (outcome.error !== null) {
        // A provider error in a 200 (a stream's error frame, an error body): the provider's fault,
        // not the agent's, even when the agent then crashes on it.
        const message = `the upstream answered with an error: ${outcome.error}`;
        if (res.headersSent) {
          exchange.error = this.scrub(message);
          if (!trial.runError) Object.assign(trial, { runError: { code: AGENT_RUN_ERROR.PROVIDER_ERROR, message: this.scrub(`task ${trial.taskId}, step ${step}: ${message}`) }, absorbable: true });
          return;
        }
        return fail(AGENT_RUN_ERROR.PROVIDER_ERROR, message, true);
      }
      exchange.reply = outcome.reply;
      if (!outcome.cut && trial.absorbable) Object.assign(trial, { runError: null, absorbable: false });
      // A stream cut short is passed on as it came, but a cassette keeps only whole replies.
      if (outcome.cut) exchange.error = 'the upstream stream ended with neither a finish_reason nor data: [DONE] (cut short); not recorded';
      else recorder?.add(trial.taskId, hash, parsed.model, outcome.reply, occurrence);
    } catch (error) {
      if (trial.controller.signal.aborted) return void res.destroy();
      if (res.headersSent) {
        exchange.error = this.scrub(`stream broke: ${(error as Error).message}`);
        if (!trial.runError) Object.assign(trial, { runError: { code: AGENT_RUN_ERROR.PROVIDER_ERROR, message: `task ${trial.taskId}, step ${step}: ${exchange.error}` }, absorbable: true });
        return void res.destroy();
      }
      return fail(AGENT_RUN_ERROR.PROVIDER_ERROR, (error as Error).message, true);
    } finally {
      exchange.ended = new Date().toISOString();
    }
  }
}

/**
 * A request body, or null once it passes the cap: reading stops there, as it streams (an endless
 * chunked upload costs the cap, not the connection's lifetime); the caller answers 413 and closes.
 */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) return void chunks.push(chunk);
      req.off('data', onData).pause();
      resolve(null);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendReply(res: ServerResponse, reply: ChatReply, request: ChatRequest, step: number): void {
  const id = `chatcmpl-tracegate-${step}`;
  const created = Math.floor(Date.now() / 1000);
  if (request.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(sseBody(reply, id, created, request.stream_options?.include_usage === true));
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completionBody(reply, id, created)));
  }
}

/**
 * A refusal that no agent could avoid (the key tracegate holds is wrong, the endpoint or model does
 * not exist): the run's configuration, not the agent's request. Null for any other status.
 */
function configurationFault(status: number, body: string): string | null {
  let detail = cutAtToken(body, 300);
  try {
    detail = providerErrorOf(JSON.parse(body)) ?? detail;
  } catch {
    // Not JSON: the body's text as it came.
  }
  if (status === 401 || status === 403) return `the upstream refused tracegate's key (HTTP ${status}: ${detail}); check the key variable (OPENAI_API_KEY or --api-key-env) and --base-url`;
  if (status === 404) return `the upstream has no such model or endpoint (HTTP 404: ${detail}); check the model name and --base-url`;
  return null;
}

/**
 * How long a started stream may send nothing: half of what is left of the trial's budget (at least
 * 0.5 s, at most 60 s), so a stream that hangs is cut, and called the provider's fault, before the
 * agent is killed at its own limit.
 */
export function streamIdleMs(deadline: number, now = Date.now()): number {
  return Math.min(60_000, Math.max(500, (deadline - now) / 2));
}

async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the upstream stream sent nothing for ${(ms / 1000).toFixed(1)} s (idle timeout)`)), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** What came back from a 2xx: the folded reply, or the provider error it carried instead. */
interface UpstreamOutcome {
  reply: ChatReply;
  error: string | null;
  /** A stream that ended without a finish_reason or [DONE]. */
  cut: boolean;
}

/**
 * Streams the upstream's SSE bytes to the agent as they come (an error frame too: the agent's client
 * raises it), folding the chunks into one reply.
 */
async function pipeStream(response: Response, res: ServerResponse, key: string | null, deadline: number): Promise<UpstreamOutcome> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const parser = new SseParser();
  const accumulator = new ChunkAccumulator();
  const decoder = new TextDecoder();
  const scrubber = new KeyScrubber(key);
  let error: string | null = null;
  let done = false;
  const onEvent = (data: string, event: string | null): void => {
    if (data === '[DONE]') return void (done = true);
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      // A malformed chunk is passed on untouched; the agent's client decides what it means.
      if (event === 'error') error ??= cutAtToken(data, 300);
      return;
    }
    const problem = providerErrorOf(chunk) ?? (event === 'error' ? cutAtToken(data, 300) : null);
    if (problem !== null) error ??= problem;
    else accumulator.add(chunk);
  };
  const reader = response.body!.getReader();
  // An agent that hangs up mid-stream: stop reading (and paying for) the rest of the upstream's answer.
  res.once('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const next = await readWithin(reader, streamIdleMs(deadline));
    if (next.done) break;
    const text = scrubber.push(decoder.decode(next.value, { stream: true }));
    if (text) res.write(text);
    parser.push(text, onEvent);
  }
  // What the scrubber held back (it might have begun the key) is the stream's end, for the trace too.
  const tail = scrubber.flush() + decoder.decode();
  if (tail) parser.push(tail, onEvent);
  parser.end(onEvent);
  res.end(tail);
  const reply = accumulator.reply();
  return { reply, error, cut: !done && reply.finishReason === null };
}

/** A 2xx completion passed to the agent, unless it is an error body (the caller answers that). */
async function passCompletion(response: Response, res: ServerResponse, key: string | null): Promise<UpstreamOutcome> {
  const body = scrubKeyBytes(Buffer.from(await response.arrayBuffer()), key);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    // forwardUpstream accepted it as JSON; a charset other than UTF-8 still reaches the agent as sent.
  }
  const error = providerErrorOf(parsed);
  if (error === null) res.writeHead(200, { 'content-type': response.headers.get('content-type') ?? 'application/json' }).end(body);
  return { reply: replyFromCompletion(parsed), error, cut: false };
}
