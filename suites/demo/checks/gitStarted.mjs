// A custom check (docs/checks.md#check-input-v1-and-check-output-v1): the task asked the agent to
// start a git repository, so its final workspace must hold one with a HEAD.
import { existsSync } from 'node:fs';
import path from 'node:path';

export default function gitStarted(input) {
  const head = path.join(input.workspace, '.git', 'HEAD');
  const started = existsSync(head);
  return { schema: 'check-output/v1', pass: started, reason: started ? 'the workspace is a git repository' : 'no .git/HEAD in the final workspace: no repository was started', layer: 'model' };
}
