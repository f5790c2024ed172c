import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CASSETTE_SCHEMA_VERSION, CassetteSchema, cassettePath, type Cassette } from '../schema/cassette.js';
import { readJsonFile } from '../files/jsonFile.js';
import type { CassetteMatch } from './cassetteMatch.js';
import type { Redactor } from '../schema/redact.js';
import type { ModelInfo } from '../schema/trace.js';
import { cassetteResponseOf, replyFromCassette, type ChatReply } from './chatReply.js';

/** Replays cassettes for the proxy: recordings by request hash (or call order), scripts by the trial's nth call. */
export class CassetteReplay {
  private readonly byTask = new Map<string, Cassette>();
  readonly info: ModelInfo;

  constructor(
    readonly dir: string,
    readonly match: CassetteMatch = 'hash',
  ) {
    const kinds = new Set<string>();
    const models = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const cassette = readJsonFile(path.join(dir, file), CassetteSchema, 'cassette');
      this.byTask.set(cassette.task_id, cassette);
      kinds.add(cassette.kind);
      models.add(cassette.model);
    }
    const mode = kinds.has('script') || kinds.size === 0 ? 'scripted' : 'replayed';
    this.info = { provider: 'cassette', mode, model: [...models].sort().join(',') || 'none', base_url: null };
  }

  models(taskId: string): string[] {
    const model = this.byTask.get(taskId)?.model;
    return model ? [model] : [];
  }

  /**
   * The reply, or a sentence saying why there is none (the caller names task and step). `occurrence`:
   * the how-manieth time this trial sends this request; the same request's replies replay in the
   * order they were recorded (the last one again once they run out).
   */
  find(taskId: string, hash: string, nth: number, occurrence = 1): ChatReply | string {
    const cassette = this.byTask.get(taskId);
    if (!cassette) return `no cassette ${cassettePath(this.dir, taskId)}`;
    if (cassette.kind === 'script' || this.match === 'order') {
      const interaction = cassette.interactions[nth - 1];
      return interaction
        ? replyFromCassette(interaction.response, cassette.model)
        : `the ${cassette.kind === 'script' ? 'script' : 'recording (replayed in call order)'} has only ${cassette.interactions.length} responses`;
    }
    const matches = cassette.interactions.filter((i) => i.request_hash === hash);
    const interaction = matches[Math.min(occurrence, matches.length) - 1];
    return interaction
      ? replyFromCassette(interaction.response, cassette.model)
      : `no recorded response for request ${hash.slice(0, 19)}… (the prompt, tools, generation settings or earlier replies changed since recording)`;
  }
}

/** Writes what a live upstream answered as one recording cassette per task (redacted, after every call). */
export class CassetteRecorder {
  private readonly byTask = new Map<string, Cassette>();

  constructor(
    private readonly dir: string,
    private readonly source: string,
    private readonly redactor: Redactor,
  ) {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  }

  /**
   * `occurrence`: the how-manieth time the trial sent this request. Each is kept in order; another
   * trial (epoch) of the task sending the same requests adds nothing new.
   */
  add(taskId: string, hash: string, requestModel: string, reply: ChatReply, occurrence = 1): void {
    const cassette = this.byTask.get(taskId) ?? {
      schema_version: CASSETTE_SCHEMA_VERSION,
      kind: 'recording' as const,
      task_id: taskId,
      model: reply.model ?? requestModel,
      note: `recorded through the capture proxy from ${this.source}`,
      interactions: [],
    };
    this.byTask.set(taskId, cassette);
    if (cassette.interactions.filter((i) => i.request_hash === hash).length >= occurrence) return;
    cassette.interactions.push({ request_hash: hash, response: cassetteResponseOf(reply) });
    writeFileSync(cassettePath(this.dir, taskId), JSON.stringify(this.redactor.deep(cassette), null, 2) + '\n');
  }
}
