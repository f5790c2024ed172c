import type { ModelInfo } from '../schema/trace.js';
import type { JudgeInfo } from '../schema/rubric.js';
import type { RubricAgreement } from '../schema/report.js';

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

/** Where the rubric checks' verdicts came from, as plainly as the model's. */
export function judgeLabel(judge: JudgeInfo): string {
  switch (judge.mode) {
    case 'replayed':
      return `REPLAYED: recorded verdicts of ${judge.model} from judge cassettes (${judge.cassettes}), no judge was called`;
    case 'scripted':
      return `SCRIPTED: hand-written judge cassette verdicts (${judge.model}), no judge was called`;
    case 'live':
      return `LIVE${judge.recording ? ' and recording' : ''}: ${judge.model} at ${judge.base_url ?? 'default endpoint'}`;
  }
}

/** How often the judge agreed with the rule checks of the same trials (summary.rubric_agreement). */
export function agreementLabel(a: RubricAgreement): string {
  const rate = a.rate === null ? 'n/a' : `${(a.rate * 100).toFixed(1)}%`;
  const split = a.agree === a.trials ? '' : `; the rubric alone passed ${a.rubric_only_passed}, the rules alone ${a.rules_only_passed}`;
  return `rubric agrees with the rule checks on ${a.agree} of ${a.trials} trials (${rate})${split}`;
}
