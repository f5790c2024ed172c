import type { ModelInfo } from '../../src/schema/trace.js';
import { ModelError, type Model, type ModelCallContext, type ModelReply } from './types.js';

/** For runs of policy tasks only: no model is configured, and asking one is an error, not a script. */
export class NoModel implements Model {
  readonly info: ModelInfo = { provider: 'none', mode: 'none', model: 'none', base_url: null };

  async complete(_request: unknown, ctx: ModelCallContext): Promise<ModelReply> {
    throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: no model is configured for this run`);
  }
}
