import { CassetteRecorder, CassetteReplay } from '../capture/cassetteStore.js';
import { replyFromCompletion, type ChatReply } from '../capture/chatReply.js';
import { judgeRequest, parseVerdict } from '../judging/checks/rubricPrompt.js';
import { EndpointLimiter, requestWithProviderRetries } from '../provider/index.js';
import { checkKey } from '../schema/outcomeFacts.js';
import type { Redactor } from '../schema/redact.js';
import { requestHash } from '../schema/requestKey.js';
import type { JudgeInfo, RubricFacts, RubricSpec } from '../schema/rubric.js';
import type { Task } from '../schema/task.js';
import { SPAN_KIND, type Span, type Trace } from '../schema/trace.js';
import { attributes } from '../schema/traceVocabulary.js';
import type { JudgePlan } from './judgePlan.js';

export interface JudgeOptions {
  plan: JudgePlan;
  redactor: Redactor;
  /** The ceiling of judge calls in flight (the run's -j), adapted to the endpoint's 429s. */
  concurrency: number;
  /** The time one verdict may take, retries included. */
  timeoutMs: number;
}

/** The trial's own folder in the judge's text, so a recording replays in another folder. */
const WORKSPACE_MARK = '$WORKSPACE';

/**
 * Asks the judge model for the verdict of each rubric check, through the provider layer (retries,
 * Retry-After, adaptive concurrency), or replays it from judge cassettes keyed like the agent's
 * (src/schema/requestKey.ts). Each check gets a `check` span with the verdict or the judge's fault;
 * it never throws for a fault, which errors the trial (src/judging/checks/rubricChecks.ts rubricFault).
 */
export class RubricJudge {
  readonly info: JudgeInfo | null;
  private readonly url: URL | null = null;
  private readonly limiter: EndpointLimiter;
  private readonly replay: CassetteReplay | null = null;
  private readonly recorder: CassetteRecorder | null = null;

  constructor(private readonly options: JudgeOptions) {
    const { plan } = options;
    this.limiter = new EndpointLimiter({ max: options.concurrency });
    if (plan.kind === 'live') {
      this.url = new URL(`${plan.baseUrl.replace(/\/+$/, '')}/chat/completions`);
      if (plan.record) this.recorder = new CassetteRecorder(plan.record, `the judge at ${plan.baseUrl}`, options.redactor);
      this.info = { model: plan.model, mode: 'live', base_url: plan.baseUrl, cassettes: plan.record ?? null, recording: Boolean(plan.record) };
    } else if (plan.kind === 'cassettes') {
      this.replay = new CassetteReplay(plan.dir);
      const mode = this.replay.info.mode === 'scripted' ? 'scripted' : 'replayed';
      this.info = { model: this.replay.info.model, mode, base_url: null, cassettes: plan.dir, recording: false };
    } else this.info = null;
  }

  /** The trace with one `check` span per rubric check of the task. */
  async judge(task: Task, trace: Trace, workspace: string, signal?: AbortSignal): Promise<Trace> {
    const specs = task.checks.filter((c): c is RubricSpec => c.type === 'rubric');
    if (specs.length === 0) return trace;
    const root = trace.spans.find((s) => s.kind === SPAN_KIND.agent && s.parent_id === null) ?? trace.spans[0];
    // The judge sees what the report will show: redacted, the workspace path masked.
    const shown = JSON.parse(this.options.redactor.deep(JSON.stringify(trace)).split(workspace).join(WORKSPACE_MARK)) as Trace;
    const spans: Span[] = [];
    for (const [i, spec] of specs.entries()) {
      const start = new Date().toISOString();
      let found: { facts?: RubricFacts; error?: string };
      try {
        found = await this.verdict(task.id, spec, i + 1, shown, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        found = { error: `the judge failed: ${(error as Error).message}` };
      }
      spans.push({
        span_id: `judge-${i + 1}`,
        parent_id: root?.span_id ?? null,
        kind: SPAN_KIND.check,
        name: 'check rubric',
        start,
        end: new Date().toISOString(),
        status: found.error ? 'error' : 'ok',
        attributes: attributes({
          checkType: 'rubric',
          checkKey: checkKey(spec),
          checkFacts: found.facts ? JSON.stringify(found.facts) : null,
          checkError: found.error ?? null,
        }),
        events: [],
      });
    }
    return { ...trace, spans: [...trace.spans, ...spans] };
  }

  /** `nth`: which rubric check of the trial this is; a script cassette gives every trial its nth reply for it. */
  private async verdict(taskId: string, spec: RubricSpec, nth: number, trace: Trace, signal: AbortSignal | undefined): Promise<{ facts?: RubricFacts; error?: string }> {
    const { plan } = this.options;
    if (plan.kind === 'none') return { error: 'no judge: pass --judge-model NAME (an OpenAI-compatible endpoint) or --judge-cassettes DIR' };
    const request = judgeRequest(spec, trace, plan.kind === 'live' ? plan.model : (this.replay!.models(taskId)[0] ?? 'unknown'));
    const hash = requestHash(request);
    let reply: ChatReply;
    if (plan.kind === 'cassettes') {
      const found = this.replay!.find(taskId, hash, nth);
      if (typeof found === 'string') return { error: `judge cassette for ${taskId}: ${found}` };
      reply = found;
    } else {
      const live = await this.ask(plan, request, signal);
      if (typeof live === 'string') return { error: live };
      reply = live;
      this.recorder?.add(taskId, hash, plan.model, reply);
    }
    const verdict = parseVerdict(reply.content ?? '');
    if (typeof verdict === 'string') return { error: `the judge's reply is no verdict: ${verdict}` };
    return { facts: { ...verdict, judge_model: reply.model ?? request.model, mode: this.info!.mode } };
  }

  private async ask(plan: Extract<JudgePlan, { kind: 'live' }>, request: object, signal: AbortSignal | undefined): Promise<ChatReply | string> {
    let reply: ChatReply | null = null;
    const acceptBody = (text: string) => {
      try {
        reply = replyFromCompletion(JSON.parse(text));
        return true;
      } catch {
        return false;
      }
    };
    const answer = await requestWithProviderRetries(
      this.url!,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': 'tracegate-judge', authorization: `Bearer ${plan.apiKey ?? 'not-needed'}` },
        body: JSON.stringify(request),
      },
      { deadline: Date.now() + this.options.timeoutMs, signal, limiter: this.limiter, acceptBody },
    );
    if (answer.status < 200 || answer.status > 299 || reply === null) {
      return `the judge at ${this.url!.origin}${this.url!.pathname} refused the request: ${answer.status} ${answer.body.trim().slice(0, 300) || answer.statusText}`;
    }
    return reply;
  }
}
