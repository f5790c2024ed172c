import type { ModelInfo } from '../schema/trace.js';

/** Every report says plainly where the model's words came from. */
export function modelLabel(model: ModelInfo): string {
  switch (model.mode) {
    case 'scripted':
      return `SCRIPTED: hand-written cassette responses (${model.model}), no model was called`;
    case 'replayed':
      return `REPLAYED: recorded responses of ${model.model} from cassettes, no model was called`;
    case 'recording':
      return `LIVE and recording: ${model.model} at ${model.base_url ?? 'default endpoint'}`;
    case 'live':
      return `LIVE: ${model.model} at ${model.base_url ?? 'default endpoint'}`;
    case 'none':
      return 'no model configured (policy tasks only, or an external agent with no upstream and no cassettes)';
    case 'imported':
      return `IMPORTED: stored traces of ${model.model}, judged without running the agent`;
  }
}
