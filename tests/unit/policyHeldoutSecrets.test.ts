import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Secret files the held-out corpus of 2026-12 found outside `secret_paths`: direnv's `.envrc`,
 * Terraform variables and state, a kubeconfig, keystores, a Vault token, an htpasswd file.
 * Their values are plain words redaction does not recognise, so only the secret path stands
 * between them and the trace.
 */
let policy: Policy;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];
const MARK = 'heldoutplainmarker';
const FILES: Record<string, string> = {
  '.envrc': `export DEPLOY_HOST=${MARK}1\n`,
  'terraform.tfvars': `region = "${MARK}2"\n`,
  'prod.auto.tfvars': `region = "${MARK}3"\n`,
  'terraform.tfstate': `{"outputs": {"db": {"value": "${MARK}4"}}}\n`,
  'terraform.tfstate.backup': `{"outputs": {"db": {"value": "${MARK}5"}}}\n`,
  '.kube/config': `users:\n- name: ${MARK}6\n`,
  'signing.p12': `${MARK}7\n`,
  'release.jks': `${MARK}8\n`,
  '.vault-token': `${MARK}9\n`,
  '.htpasswd': `admin:${MARK}10\n`,
};

function workspace(): string {
  const ws = realpathSync(tempDir('tracegate-heldout-secrets-'));
  for (const [name, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    writeFileSync(path.join(ws, name), text);
  }
  writeFileSync(path.join(ws, 'README.md'), 'plain\n');
  return ws;
}

beforeAll(() => {
  policy = loadPolicy();
});

describe('secret files beyond .env and keys (held-out corpus 2026-12)', () => {
  for (const name of Object.keys(FILES)) {
    it(`cat ${name} is refused as a secret path, under both sandboxes`, async () => {
      const ws = workspace();
      for (const sandbox of SANDBOXES) {
        expect(await decideShell(policy, `cat ${name}`, ws, sandbox), sandbox).toMatchObject({ decision: 'deny', rule: 'secret-path' });
      }
    });
  }

  it('grep -r over the workspace withholds every one of them under the process sandbox (a real grep run)', async () => {
    const ws = workspace();
    expect(await decideShell(policy, `grep -rh ${MARK} .`, ws, 'process')).toMatchObject({ decision: 'allow' });
    const ran = await runCommand(`grep -rh ${MARK} .`, { workspace: ws, timeoutMs: 30_000, outputCap: 20_000, mode: 'process', secretPaths: policy.secret_paths });
    expect(ran.output).toContain('withheld');
    expect(ran.output).not.toContain(MARK);
  });

  it.skipIf(!hasBubblewrap())('bubblewrap masks them, so a program that reads them by itself gets nothing', async () => {
    const ws = workspace();
    const names = Object.keys(FILES).map((n) => `'${n}'`).join(', ');
    const code = `for n in [${names}]:\n    try: print(open(n).read())\n    except OSError: pass\n`;
    const ran = await runCommand(`python3 - <<'EOF'\n${code}EOF`, { workspace: ws, timeoutMs: 30_000, outputCap: 20_000, mode: 'bwrap', secretPaths: policy.secret_paths });
    expect(ran.output).not.toContain(MARK);
  });
});
