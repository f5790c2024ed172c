import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CASSETTE_SCHEMA_VERSION, CassetteSchema, cassettePath, type Cassette } from '../schema/cassette.js';
import { readJsonFile } from '../schema/jsonFile.js';
import type { Redactor } from '../schema/redact.js';
import type { ModelInfo } from '../schema/trace.js';
import { cassetteResponseOf, replyFromCassette, type ChatReply } from './chatReply.js';

/** Replays cassettes for the proxy: recordings by request hash, scripts by the trial's nth call. */
export class CassetteReplay {
  private readonly byTask = new Map<string, Cassette>();
  readonly info: ModelInfo;

  constructor(readonly dir: string) {
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

  /** The reply, or a sentence saying why there is none (the caller names task and step). */
  find(taskId: string, hash: string, nth: number): ChatReply | string {
    const cassette = this.byTask.get(taskId);
    if (!cassette) return `no cassette ${cassettePath(this.dir, taskId)}`;
    if (cassette.kind === 'script') {
      const interaction = cassette.interactions[nth - 1];
      return interaction ? replyFromCassette(interaction.response, cassette.model) : `the script has only ${cassette.interactions.length} responses`;
    }
    const interaction = cassette.interactions.find((i) => i.request_hash === hash);
    return interaction
      ? replyFromCassette(interaction.response, cassette.model)
      : `no recorded response for request ${hash.slice(0, 19)}… (the prompt, tools or earlier replies changed since recording)`;
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

  add(taskId: string, hash: string, requestModel: string, reply: ChatReply): void {
    const cassette = this.byTask.get(taskId) ?? {
      schema_version: CASSETTE_SCHEMA_VERSION,
      kind: 'recording' as const,
      task_id: taskId,
      model: reply.model ?? requestModel,
      note: `recorded through the capture proxy from ${this.source}`,
      interactions: [],
    };
    this.byTask.set(taskId, cassette);
    if (cassette.interactions.some((i) => i.request_hash === hash)) return;
    cassette.interactions.push({ request_hash: hash, response: cassetteResponseOf(reply) });
    writeFileSync(cassettePath(this.dir, taskId), JSON.stringify(this.redactor.deep(cassette), null, 2) + '\n');
  }
}
