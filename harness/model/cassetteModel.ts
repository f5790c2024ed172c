import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CassetteSchema, cassettePath, type Cassette, type CassetteResponse } from '../../src/schema/cassette.js';
import { JsonFileError, readJsonFile } from '../../src/files/jsonFile.js';
import { createRedactor, type Redactor } from '../../src/schema/redact.js';
import type { ModelInfo } from '../../src/schema/trace.js';
import { cassetteKey } from './cassetteKey.js';
import { requestHash } from './requestHash.js';
import { ModelError, type Model, type ModelCallContext, type ModelReply, type ModelRequest } from './types.js';

export { cassettePath };

export function readCassette(file: string): Cassette {
  try {
    return readJsonFile(file, CassetteSchema, 'cassette');
  } catch (error) {
    if (error instanceof JsonFileError) throw new ModelError('CASSETTE_INVALID', error.message);
    throw error;
  }
}

/**
 * Replays cassettes from a folder, one file per task. Scripts replay by step; recordings by request
 * hash. A miss is an error naming task and step, never a fallback to anything else.
 */
export class CassetteModel implements Model {
  readonly info: ModelInfo;
  private readonly cache = new Map<string, Cassette>();

  /** `redactor`: the run's, as the recording's was, so a request is looked up as it was keyed (cassetteKey.ts). */
  constructor(
    private readonly dir: string,
    private readonly redactor: Redactor = createRedactor(),
  ) {
    if (!existsSync(dir)) throw new ModelError('CASSETTE_INVALID', `cassette folder ${dir} does not exist`);
    const kinds = new Set<string>();
    const models = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const cassette = readCassette(path.join(dir, file));
      this.cache.set(cassette.task_id, cassette);
      kinds.add(cassette.kind);
      models.add(cassette.model);
    }
    // A folder mixing both is labelled with the weaker claim: scripted.
    const mode = kinds.has('script') || kinds.size === 0 ? 'scripted' : 'replayed';
    this.info = { provider: 'cassette', mode, model: [...models].sort().join(',') || 'none', base_url: null };
  }

  async complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply> {
    const cassette = this.cache.get(ctx.taskId);
    if (!cassette) {
      throw new ModelError('CASSETTE_MISS', `task ${ctx.taskId}, step ${ctx.step}: no cassette ${cassettePath(this.dir, ctx.taskId)}`);
    }
    const response =
      cassette.kind === 'script' ? this.scripted(cassette, ctx) : this.recorded(cassette, request, ctx);
    return toReply(response, ctx.step);
  }

  private scripted(cassette: Cassette, ctx: ModelCallContext): CassetteResponse {
    const interaction = cassette.interactions[ctx.step - 1];
    if (!interaction) {
      throw new ModelError(
        'CASSETTE_MISS',
        `task ${ctx.taskId}, step ${ctx.step}: the script has only ${cassette.interactions.length} responses`,
      );
    }
    return interaction.response;
  }

  private recorded(cassette: Cassette, request: ModelRequest, ctx: ModelCallContext): CassetteResponse {
    // Keyed as redacted; recordings made before that were keyed by the request as sent.
    const hash = cassetteKey(request, this.redactor);
    const raw = requestHash(request);
    const interaction =
      cassette.interactions.find((i) => i.request_hash === hash) ?? cassette.interactions.find((i) => i.request_hash === raw);
    if (!interaction) {
      // A tool run on arguments the recording redacted (a file the model wrote) answers otherwise than it did live.
      const redacted = cassette.interactions.some((i) => i.response.tool_calls.some((c) => JSON.stringify(c.arguments).includes('[REDACTED:')));
      const why = redacted
        ? 'the recording redacted tool arguments, and a tool run on the redacted text answers otherwise than it did live; or the prompt, tools or earlier replies changed since recording'
        : 'the prompt, tools or earlier replies changed since recording';
      throw new ModelError('CASSETTE_MISS', `task ${ctx.taskId}, step ${ctx.step}: no recorded response for request ${hash.slice(0, 19)}… (${why})`);
    }
    return interaction.response;
  }
}

function toReply(response: CassetteResponse, step: number): ModelReply {
  return {
    content: response.content,
    refusal: response.refusal,
    toolCalls: response.tool_calls.map((call, i) => ({
      id: call.id ?? `call_${step}_${i + 1}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    })),
    usage: response.usage ?? { input_tokens: 0, output_tokens: 0 },
    finishReason: response.finish_reason ?? (response.tool_calls.length ? 'tool_calls' : 'stop'),
  };
}
