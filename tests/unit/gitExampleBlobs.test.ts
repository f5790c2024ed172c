import { execFileSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand, type SandboxMode } from '../../harness/index.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * `git show REV:.env.example` is judged like `cat .env.example`, by content, but by the content of
 * that blob rather than the work tree's file: the policy lets an example file's blob through to the
 * git shim, which prints a blob that holds placeholders alone and refuses any other. A secret-named
 * path that is no example file (`HEAD:.env`) stays refused by the policy.
 */
const KEY = `sk-proj-${'A1b2C3d4E5f6G7h8I9j0'.repeat(2)}`;
const PLACEHOLDERS = 'OPENAI_API_KEY=your-key-here\nDEBUG=1\n';
const MODES: SandboxMode[] = hasBubblewrap() ? ['process', 'bwrap'] : ['process'];
let policy: Policy;

function repository(): string {
  const ws = realpathSync(tempDir('tracegate-example-blob-'));
  const env = { PATH: '/usr/bin:/bin', HOME: ws, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env });
  git('init', '-q');
  writeFileSync(path.join(ws, '.env.example'), `OPENAI_API_KEY=${KEY}\n`);
  writeFileSync(path.join(ws, 'README.md'), '# app\n');
  git('add', '-A');
  git('commit', '-qm', 'a real key in the template');
  writeFileSync(path.join(ws, '.env.example'), PLACEHOLDERS);
  git('commit', '-qam', 'placeholders');
  return ws;
}

beforeAll(() => {
  policy = loadPolicy();
});

describe.each(MODES)('%s: git REV:PATH of an example file is judged by the blob', (mode) => {
  const sandbox = mode === 'bwrap' ? 'isolated' : 'process';
  const run = async (ws: string, command: string) => {
    const decided = await decideShell(policy, command, ws, sandbox);
    const r = await runCommand(command, { workspace: ws, timeoutMs: 60_000, outputCap: 8000, mode, secretPaths: policy.secret_paths });
    return { decided, output: r.output };
  };

  it('a blob of placeholders is shown, whole and without a withheld notice, in any spelling of its path', async () => {
    const ws = repository();
    for (const command of ['git show HEAD:.env.example', 'git show HEAD:./.env.example', 'git cat-file -p HEAD:.env.example']) {
      const { decided, output } = await run(ws, command);
      expect(decided.decision, `${command}: ${decided.reason}`).toBe('allow');
      expect(output, command).toBe(PLACEHOLDERS);
    }
  });

  it('a blob holding a key is refused when git runs, though the policy lets the example path through', async () => {
    const ws = repository();
    for (const command of ['git show HEAD~1:.env.example', 'git cat-file -p HEAD~1:.env.example', 'git show HEAD~1:.env.example | head -c 40']) {
      const { decided, output } = await run(ws, command);
      expect(decided.decision, command).toBe('allow');
      expect(output, command).not.toContain(KEY.slice(0, 16));
    }
  });

  it('a real key written into the work tree\'s template refuses cat, not the committed placeholder blob', async () => {
    const ws = repository();
    writeFileSync(path.join(ws, '.env.example'), `OPENAI_API_KEY=${KEY}\n`);
    expect((await decideShell(policy, 'cat .env.example', ws, sandbox)).decision).toBe('deny');
    const { decided, output } = await run(ws, 'git show HEAD:.env.example');
    expect(decided.decision, decided.reason).toBe('allow');
    expect(output).toBe(PLACEHOLDERS);
  });

  it('a secret path that is no example file stays refused by the policy', async () => {
    const ws = repository();
    for (const command of ['git show HEAD:.env', 'git show HEAD:config/.env', 'git cat-file -p :0:id_rsa']) {
      expect((await decideShell(policy, command, ws, sandbox)).decision, command).toBe('deny');
    }
  });
});
