import { mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../../src/schema/atomicWrite.js';
import type { Cassette } from '../../src/schema/cassette.js';
import { CASSETTE_SCHEMA_VERSION } from '../../src/schema/cassette.js';
import type { Redactor } from '../../src/schema/redact.js';
import type { ModelInfo } from '../../src/schema/trace.js';
import { cassettePath } from './cassetteModel.js';
import { requestHash } from './requestHash.js';
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
    const hash = requestHash(request);
    if (!cassette.interactions.some((i) => i.request_hash === hash)) {
      cassette.interactions.push({
        request_hash: hash,
        response: {
          content: reply.content,
          refusal: reply.refusal,
          tool_calls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
          usage: reply.usage,
          // Kept whenever the server sent one, so a replay reports how the model ended (`length` …).
          ...(reply.finishReason ? { finish_reason: reply.finishReason } : {}),
        },
      });
    }
    // Written after every call, so an interrupted recording keeps what it has.
    writeFileAtomicSync(cassettePath(this.dir, ctx.taskId), JSON.stringify(this.redactor.deep(cassette), null, 2) + '\n');
    return reply;
  }
}
