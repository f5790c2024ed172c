import { realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, decideToolCall, loadPolicy, runCommand } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * `*.example` / `*.sample` / `*.template` files are judged by their content:
 * placeholders are not secrets, a real key inside one is.
 */
let policy: Policy;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];
const AWS = `AKIA${'Q'.repeat(4)}7EXAMPLEKEY1`.slice(0, 20);
const OPENAI = `sk-proj-${'a1B2c3D4'.repeat(5)}`;

function workspace(files: Record<string, string>): string {
  const ws = realpathSync(tempDir('tracegate-example-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(ws, name), text);
  return ws;
}

beforeAll(() => {
  policy = loadPolicy();
});

describe('example files', () => {
  const PLACEHOLDERS: Record<string, string> = {
    '.env.example': 'DATABASE_URL=postgres://user:CHANGE_ME@localhost:5432/app\nAPI_KEY=your-api-key-here\nSECRET_TOKEN=\nexport STRIPE_KEY="<your stripe key>"\n# comment\n',
    'config.sample': 'password: xxxxxx\ntoken: ${TOKEN}\n',
    'secrets.template': 'AWS_SECRET_ACCESS_KEY={{ aws_secret }}\nGITHUB_TOKEN=replace-me\n',
  };
  for (const [name, text] of Object.entries(PLACEHOLDERS)) {
    it(`${name} with placeholders is read, under both sandboxes`, async () => {
      const ws = workspace({ [name]: text, '.env': 'REAL=1\n' });
      for (const sandbox of SANDBOXES) {
        expect(await decideShell(policy, `cat ${name}`, ws, sandbox)).toMatchObject({ decision: 'allow' });
        expect(await decideToolCall(policy, { tool: 'read_file', args: { path: name } }, ws, { sandbox })).toMatchObject({ decision: 'allow' });
      }
      const ran = await runCommand(`cat ${name}`, { workspace: ws, timeoutMs: 10_000, outputCap: 10_000, mode: 'process' });
      expect(ran.output).toBe(text);
    });
  }

  const REAL: Array<[string, string, string]> = [
    ['an AWS key', '.env.example', `AWS_ACCESS_KEY_ID=${AWS}\n`],
    ['an OpenAI key', '.env.sample', `OPENAI_API_KEY=${OPENAI}\n`],
    ['a key inside a placeholder-looking value', '.env.example', `API_KEY=example-${OPENAI}\n`],
    ['a real password next to placeholders', '.env.template', 'USER=your-name\nDB_PASSWORD=hunter2-prod-9f8e7d\n'],
    ['a key outside any assignment', 'secrets.example', `curl -H "Authorization: Bearer ${OPENAI}"\n`],
    ['a PEM block', '.env.local.example', '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n'],
  ];
  for (const [what, name, text] of REAL) {
    it(`${name} holding ${what} is a secret`, async () => {
      const ws = workspace({ [name]: text });
      for (const sandbox of SANDBOXES) {
        expect(await decideShell(policy, `cat ${name}`, ws, sandbox), sandbox).toMatchObject({ decision: 'deny', rule: 'secret-path' });
      }
    });
  }

  it('a link named like an example, to the real secret, is the secret', async () => {
    const ws = workspace({ '.env': 'DATABASE_URL=postgres://u:hunter2-prod-9f8e7d@db/app\n' });
    symlinkSync('.env', path.join(ws, '.env.example'));
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, 'cat .env.example', ws, sandbox)).toMatchObject({ decision: 'deny', rule: 'secret-path' });
  });
});
