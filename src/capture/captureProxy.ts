import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_RUN_ERROR } from '../schema/runErrorCodes.js';
import { cutAtToken, patternRedactor, type Redactor } from '../schema/redact.js';
import { requestHash, type KeyedRequest } from '../schema/requestKey.js';
import { providerErrorOf, SseParser, type ChatReply } from './chatReply.js';
import { describeCall, matchProtocol, SPOKEN, type Protocol, type ProtocolRoute, type StreamFolder, type UpstreamFamily } from './protocols/index.js';
import type { CassetteRecorder, CassetteReplay } from './cassetteStore.js';
import { CassetteNormalizer, type TrialPlaces, type VolatileMask } from './cassetteNormalize.js';
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
function cassetteKeyed(request: KeyedRequest, stored: Redactor, normalizer: CassetteNormalizer): KeyedRequest {
  const redacted = patternRedactor.deep({ ...request, messages: request.messages.map((m) => (m.role === 'assistant' ? stored.deep(m) : m)) });
  // Then what is not the agent's choice (the trial's folders, dates, per-request ids, the suite's masks).
  return { ...redacted, messages: normalizer.key(redacted.messages, true), ...(redacted.tools === undefined ? {} : { tools: normalizer.key(redacted.tools) }) };
}

/** The trial key an agent sent: in its protocol's header, or Gemini's `?key=`. Undefined when it sent none. */
function trialKeysSent(req: IncomingMessage, query: URLSearchParams): string[] {
  const sent: string[] = [];
  const auth = req.headers['authorization'];
  if (typeof auth === 'string') sent.push(auth.replace(/^Bearer\s+/i, ''));
  for (const header of ['x-api-key', 'x-goog-api-key']) {
    const value = req.headers[header];
    if (typeof value === 'string') sent.push(value);
  }
  const key = query.get('key');
  if (key !== null) sent.push(key);
  return sent;
}

export interface CaptureProxyOptions {
  /** The OpenAI endpoint (Chat Completions and Responses). */
  upstream: Upstream | null;
  /** The Anthropic and Gemini endpoints, when the run has them (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL, …). */
  upstreams?: Partial<Record<Exclude<UpstreamFamily, 'openai'>, Upstream>> | undefined;
  replay: CassetteReplay | null;
  recorder: CassetteRecorder | null;
  /** Adaptive concurrency for the upstream endpoint (the run's -j as its ceiling). */
  limiter?: EndpointLimiter | undefined;
  /**
   * The run's redactor: every error body and message the proxy passes to an agent goes through it
   * (an upstream 401 may echo the key). The upstream key itself is masked in everything passed back.
   */
  redactor?: Redactor | undefined;
  /** The suite's masking patterns for volatile values in tool output (cassette keys only). */
  masks?: readonly VolatileMask[] | undefined;
}

/** A trial's budget when its adapter names none. */
export const DEFAULT_TRIAL_BUDGET_MS = 120_000;

/** One trial's view of the proxy: its own base URL and dummy key, and the traffic seen on them. */
export interface TrialChannel {
  /** The trial's OpenAI base URL (`…/t/<token>/v1`). */
  baseUrl: string;
  /** The trial's root (`…/t/<token>`): the Anthropic and Gemini base URL, which their clients append `/v1…` to. */
  rootUrl: string;
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
  /** The trial's places and the suite's masks, for cassette keys and the paths in recorded replies. */
  normalizer: CassetteNormalizer;
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
  /** `places`: where the trial runs (workspace, HOME, scratch), blanked in its cassette keys. */
  openTrial(taskId: string, budget: Omit<UpstreamBudget, 'limiter'> = { deadline: Date.now() + DEFAULT_TRIAL_BUDGET_MS }, places: TrialPlaces = {}): TrialChannel {
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
      normalizer: new CassetteNormalizer(places, this.options.masks),
      budget: { ...budget, limiter: this.options.limiter },
    };
    this.trials.set(token, state);
    return {
      baseUrl: `${this.url}/t/${token}/v1`,
      rootUrl: `${this.url}/t/${token}`,
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
    const [pathname = '', search = ''] = (req.url ?? '').split(/\?(.*)/s);
    const match = /^\/t\/([0-9a-f]{24})(\/.*)?$/.exec(pathname);
    const trial = match ? this.trials.get(match[1]!) : undefined;
    if (!trial || !trial.open) return void this.sendError(res, 404, 'tracegate capture proxy: unknown or finished trial path');
    const query = new URLSearchParams(search);
    const route = (match![2] ?? '/').replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    const found = matchProtocol(method, route, query);
    const sent = trialKeysSent(req, query);
    if (sent.length && !sent.includes(trial.apiKey)) {
      const names = found ? `${found.protocol.keyHeader === 'authorization' ? 'Authorization: Bearer' : found.protocol.keyHeader}` : 'its key header';
      return void this.sendError(res, 401, `tracegate capture proxy: this is not the key of this trial (${names}; the trial's key is in OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY)`, {}, found?.protocol);
    }
    if (!found) {
      // A reachability probe, or a read that is no model call, is answered without touching the trial.
      if (method === 'HEAD') return void res.writeHead(200).end();
      if (method !== 'POST') return void this.sendError(res, 404, `tracegate capture proxy: ${method} ${route || '/'} is not proxied`);
      // An API the proxy does not speak: the run's limit, not the agent's crash. The trial errors, naming what was called.
      const message = `this agent called ${describeCall(method, route)} at the proxy; tracegate's capture proxy speaks ${SPOKEN}, so the trial cannot be judged from its traffic`;
      this.refuse(trial, message);
      return void this.sendError(res, 404, `tracegate capture proxy: ${message}`, { 'x-should-retry': 'false' });
    }
    const { protocol, route: target } = found;
    if (target.kind === 'probe') return void res.writeHead(200).end();
    if (target.kind === 'models') return this.models(trial, res);
    return this.generate(trial, protocol, target, req, res);
  }

  /** A call the proxy refused: the trial errors (PROTOCOL_REFUSED) unless it already has an error the agent cannot get past. */
  private refuse(trial: TrialState, message: string): void {
    const full = this.scrub(`task ${trial.taskId}: ${message}`);
    if (!trial.runError || trial.absorbable) Object.assign(trial, { runError: { code: AGENT_RUN_ERROR.PROTOCOL_REFUSED, message: full }, absorbable: false });
  }

  private upstreamOf(protocol: Protocol): Upstream | null {
    return protocol.upstream === 'openai' ? this.options.upstream : (this.options.upstreams?.[protocol.upstream] ?? null);
  }

  /** Text on its way to an agent or a trace: the upstream keys masked, then the run's redaction. */
  private scrub(text: string): string {
    const keys = [this.options.upstream?.apiKey, this.options.upstreams?.anthropic?.apiKey, this.options.upstreams?.gemini?.apiKey].filter((k): k is string => !!k);
    const masked = keys.reduce((t, key) => t.split(key).join(KEY_MASK), text);
    return this.options.redactor ? this.options.redactor.text(masked) : masked;
  }

  /** The proxy's own error, in the shape of the API the agent called when it is known. */
  private sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, protocol?: Protocol): void {
    const text = this.scrub(message);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(protocol?.errorBody?.(status, text) ?? { type: 'error', error: { message: text, type: 'tracegate_proxy_error', code: null, param: null } }));
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

  /** Agent headers of the protocol passed upstream (API version, beta features, account). */
  private forwarded(protocol: Protocol, req: IncomingMessage): Record<string, string> {
    return Object.fromEntries(protocol.forwardedHeaders.flatMap((h) => (typeof req.headers[h] === 'string' ? [[h, req.headers[h]]] : [])));
  }

  /** A count-tokens call: passed upstream when there is one, otherwise answered with an estimate. Not a model call. */
  private async countTokens(trial: TrialState, protocol: Protocol, target: ProtocolRoute, req: IncomingMessage, raw: string, res: ServerResponse): Promise<void> {
    const upstream = this.upstreamOf(protocol);
    if (!upstream || this.options.replay) {
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // An estimate of nothing.
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(protocol.countTokens?.(body) ?? {}));
    }
    try {
      const response = await forwardUpstream(upstream, target.upstreamPath, { method: 'POST', body: raw, headers: this.forwarded(protocol, req), signal: trial.controller.signal }, trial.budget);
      const body = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
      res.end(response.ok ? scrubKeyBytes(body, upstream.apiKey) : this.scrub(body.toString('utf8')));
    } catch (error) {
      this.sendError(res, 502, `tracegate capture proxy: count tokens: ${(error as Error).message}`, {}, protocol);
    }
  }

  private async generate(trial: TrialState, protocol: Protocol, target: ProtocolRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return void this.sendError(res, 413, `tracegate capture proxy: request over ${MAX_REQUEST_BYTES} bytes`, { connection: 'close' }, protocol);
    if (target.kind === 'count-tokens') return this.countTokens(trial, protocol, target, req, raw, res);
    const refused = (why: string) => {
      const message = `this agent called ${describeCall(req.method ?? 'POST', target.upstreamPath.split('?')[0]!)} at the proxy with a body it cannot read: ${why}`;
      this.refuse(trial, message);
      this.sendError(res, 400, `tracegate capture proxy: ${message}`, { 'x-should-retry': 'false' }, protocol);
    };
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      return refused(`the body is not JSON: ${(error as Error).message}`);
    }
    const parsed = protocol.read(body, target);
    if (typeof parsed === 'string') return refused(parsed);
    const step = ++trial.calls;
    this.modelsSeen.add(parsed.model);
    const exchange: Exchange = {
      index: step,
      started: new Date().toISOString(),
      ended: '',
      model: parsed.model,
      messages: parsed.messages,
      toolNames: parsed.toolNames,
      streamed: parsed.streamed,
      source: 'none',
      reply: null,
      error: null,
      protocol: protocol.id,
    };
    trial.exchanges.push(exchange);
    // `actionFirst`: a message that starts with what the user must do keeps the task and step for its end.
    const fail = (code: string, message: string, absorbable = false, actionFirst = false) => {
      const full = this.scrub(actionFirst ? `${message} (task ${trial.taskId}, step ${step})` : `task ${trial.taskId}, step ${step}: ${message}`);
      // The first fault is the trial's, except that one the agent may still get past gives way to one it cannot.
      if (!trial.runError || (trial.absorbable && !absorbable)) Object.assign(trial, { runError: { code, message: full }, absorbable });
      exchange.error = full;
      // x-should-retry: the openai and anthropic clients would otherwise retry a fault no retry can fix.
      this.sendError(res, 502, `tracegate: ${full}`, { 'x-should-retry': 'false' }, protocol);
    };
    const { replay, recorder } = this.options;
    const upstream = this.upstreamOf(protocol);
    // The cassette key (a redaction and a hash of the whole conversation) only when a cassette is read or written.
    const hash = replay || recorder ? requestHash(cassetteKeyed(parsed.keyed, this.options.redactor ?? patternRedactor, trial.normalizer)) : '';
    const occurrence = (trial.sent.get(hash) ?? 0) + 1;
    trial.sent.set(hash, occurrence);
    try {
      if (replay) {
        const found = replay.find(trial.taskId, hash, step, occurrence);
        if (typeof found === 'string') return fail(AGENT_RUN_ERROR.CASSETTE_MISS, found);
        exchange.source = 'replayed';
        // The recording's places (its workspace, HOME) become this trial's own.
        const reply = trial.normalizer.replyFromStored(found);
        exchange.reply = reply;
        const written = protocol.write(reply, parsed, step);
        res.writeHead(200, { 'content-type': written.contentType, ...(written.contentType === 'text/event-stream' ? { 'cache-control': 'no-cache' } : {}) });
        return void res.end(written.body);
      }
      if (!upstream) {
        const hint =
          protocol.upstream === 'openai'
            ? 'pass --base-url URL (or OPENAI_BASE_URL) for a live endpoint'
            : protocol.upstream === 'anthropic'
              ? 'set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another endpoint) for a live endpoint'
              : 'set GEMINI_API_KEY (and GOOGLE_GEMINI_BASE_URL for another endpoint) for a live endpoint';
        return fail(AGENT_RUN_ERROR.NO_MODEL, `${hint}, or --cassettes DIR to replay: the agent called a model (${protocol.label}), but this run has none for it`, false, true);
      }
      exchange.source = 'live';
      // The query string (Azure's api-version, Anthropic's beta=true, Gemini's alt=sse) and the account headers go upstream with the call.
      const response = await forwardUpstream(upstream, target.upstreamPath, { method: 'POST', body: raw, headers: this.forwarded(protocol, req), signal: trial.controller.signal, stream: parsed.streamed }, trial.budget);
      if (!response.ok) {
        // Provider faults (429, 5xx, hangs, resets) were retried within the trial's budget, and
        // one that outlasted it threw ProviderFaultError (PROVIDER_ERROR, below).
        const text = this.scrub(await response.text());
        const refusal = configurationFault(response.status, text, protocol);
        if (refusal) return fail(AGENT_RUN_ERROR.PROVIDER_ERROR, refusal);
        // Another 4xx is the agent's own request being refused: pass it on and let the agent deal with it.
        exchange.error = `upstream answered HTTP ${response.status}: ${cutAtToken(text, 300)}`;
        res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' }).end(text);
        return;
      }
      const outcome = (response.headers.get('content-type') ?? '').includes('text/event-stream')
        ? await pipeStream(response, res, upstream.apiKey, trial.budget.deadline, protocol.folder())
        : await passWhole(response, res, upstream.apiKey, protocol);
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
      if (outcome.cut) exchange.error = 'the upstream stream ended before it said it was finished (cut short); not recorded';
      else recorder?.add(trial.taskId, hash, parsed.model, trial.normalizer.replyToStored(outcome.reply), occurrence);
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

const KEY_VARIABLES: Record<UpstreamFamily, string> = { openai: 'OPENAI_API_KEY or --api-key-env', anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY' };
const BASE_VARIABLES: Record<UpstreamFamily, string> = { openai: '--base-url or OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL', gemini: 'GOOGLE_GEMINI_BASE_URL' };

/**
 * A refusal that no agent could avoid (the key tracegate holds is wrong, the endpoint or model does
 * not exist): the run's configuration, not the agent's request. Null for any other status.
 */
function configurationFault(status: number, body: string, protocol: Protocol): string | null {
  let detail = cutAtToken(body, 300);
  try {
    detail = providerErrorOf(JSON.parse(body)) ?? detail;
  } catch {
    // Not JSON: the body's text as it came.
  }
  if (status === 401 || status === 403) return `the upstream refused tracegate's key (HTTP ${status}: ${detail}); check the key variable (${KEY_VARIABLES[protocol.upstream]}) and the base URL`;
  if (status === 404) return `the upstream has no such model or endpoint (HTTP 404: ${detail}); check the model name and the base URL (${BASE_VARIABLES[protocol.upstream]})`;
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
 * raises it), folding the protocol's events into one reply.
 */
async function pipeStream(response: Response, res: ServerResponse, key: string | null, deadline: number, folder: StreamFolder): Promise<UpstreamOutcome> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const scrubber = new KeyScrubber(key);
  let error: string | null = null;
  const onEvent = (data: string, event: string | null): void => {
    const problem = folder.add(data, event);
    if (problem !== null) error ??= cutAtToken(problem, 300);
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
  return { reply: folder.reply(), error, cut: !folder.complete() };
}

/** A 2xx whole reply passed to the agent, unless it is an error body (the caller answers that). */
async function passWhole(response: Response, res: ServerResponse, key: string | null, protocol: Protocol): Promise<UpstreamOutcome> {
  const body = scrubKeyBytes(Buffer.from(await response.arrayBuffer()), key);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    // forwardUpstream accepted it as JSON; a charset other than UTF-8 still reaches the agent as sent.
  }
  const error = protocol.errorOf(parsed);
  if (error === null) res.writeHead(200, { 'content-type': response.headers.get('content-type') ?? 'application/json' }).end(body);
  return { reply: protocol.fold(parsed), error, cut: false };
}
