import { mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../../src/files/atomicWrite.js';
import type { Cassette } from '../../src/schema/cassette.js';
import { CASSETTE_SCHEMA_VERSION } from '../../src/schema/cassette.js';
import type { Redactor } from '../../src/schema/redact.js';
import type { ModelInfo } from '../../src/schema/trace.js';
import { cassetteKey, redactedArguments } from './cassetteKey.js';
import { cassettePath } from './cassetteModel.js';
import type { Model, ModelCallContext, ModelReply, ModelRequest } from './types.js';

/** Wraps a live model and writes what it answered as a recording cassette per task (redacted). */
export class RecordingModel implements Model {
  readonly info: ModelInfo;
  private readonly byTask = new Map<string, Cassette>();

  constructor(
    private readonly live: Model,
    private readonly dir: string,
    private readonly redactor: Redactor,
  ) {
    this.info = { ...live.info, mode: 'recording' };
    mkdirSync(dir, { recursive: true });
  }

  async complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply> {
    const reply = await this.live.complete(request, ctx);
    const cassette = this.byTask.get(ctx.taskId) ?? {
      schema_version: CASSETTE_SCHEMA_VERSION,
      kind: 'recording' as const,
      task_id: ctx.taskId,
      model: this.live.info.model,
      note: `recorded from ${this.live.info.base_url ?? 'a live endpoint'}`,
      interactions: [],
    };
    this.byTask.set(ctx.taskId, cassette);
    const hash = cassetteKey(request, this.redactor);
    if (!cassette.interactions.some((i) => i.request_hash === hash)) {
      const { text } = this.redactor;
      // Redacted here, field by field: arguments so that JSON stays JSON (cassetteKey.ts).
      cassette.interactions.push({
        request_hash: hash,
        response: {
          content: reply.content === null ? null : text(reply.content),
          refusal: reply.refusal === null ? null : text(reply.refusal),
          tool_calls: reply.toolCalls.map((c) => ({ id: text(c.id), name: text(c.name), arguments: redactedArguments(c.arguments, this.redactor) })),
          usage: reply.usage,
          // Kept whenever the server sent one, so a replay reports how the model ended (`length` …).
          ...(reply.finishReason ? { finish_reason: text(reply.finishReason) } : {}),
        },
      });
    }
    // Written after every call, so an interrupted recording keeps what it has.
    const { interactions, ...header } = cassette;
    writeFileAtomicSync(cassettePath(this.dir, ctx.taskId), JSON.stringify({ ...this.redactor.deep(header), interactions }, null, 2) + '\n');
    return reply;
  }
}
