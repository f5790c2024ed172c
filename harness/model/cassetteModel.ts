import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CassetteSchema, cassettePath, type Cassette, type CassetteResponse } from '../../src/schema/cassette.js';
import { JsonFileError, readJsonFile } from '../../src/schema/jsonFile.js';
import type { ModelInfo } from '../../src/schema/trace.js';
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

  constructor(private readonly dir: string) {
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
    const hash = requestHash(request);
    const interaction = cassette.interactions.find((i) => i.request_hash === hash);
    if (!interaction) {
      throw new ModelError(
        'CASSETTE_MISS',
        `task ${ctx.taskId}, step ${ctx.step}: no recorded response for request ${hash.slice(0, 19)}… (the prompt, tools or earlier replies changed since recording)`,
      );
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
