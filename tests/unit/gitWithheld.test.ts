import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand, type SandboxMode } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/** Everyday repositories: one tracks a template of its settings, one tracks (and masks) a real `.env`. */
function repo(files: Record<string, string>, edits: Record<string, string>): string {
  const dir = realpathSync(tempDir('tracegate-git-everyday-'));
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  const write = (entries: Record<string, string>) => {
    for (const [file, text] of Object.entries(entries)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  };
  git('init', '-q', '.');
  write(files);
  git('add', '.');
  git('commit', '-qm', 'first');
  write(edits);
  return dir;
}

const SECRET = 'sk-proj-REALKEYREALKEYREALKEY0123';
const templateRepo = () => repo({ '.env.example': 'OPENAI_API_KEY=your-key-here\nPORT=3000\n', 'src/app.ts': '// TODO: start\n' }, { 'src/app.ts': '// TODO: start\n// changed\n', '.env.example': 'OPENAI_API_KEY=your-key-here\nPORT=3000\nDEBUG=\n' });
const secretRepo = () => repo({ '.env': `OPENAI_API_KEY=${SECRET}\n`, 'src/app.ts': '// TODO: start\n' }, { 'src/app.ts': '// TODO: start\n// changed\n', '.env': `OPENAI_API_KEY=${SECRET}\nMORE=1\n` });

const EVERYDAY = ['git status --short', 'git diff', 'git diff --stat', 'git diff HEAD', 'git grep -n TODO', 'git log -p', 'git show', 'git log --oneline', "git diff -- . ':(exclude).env.example' ':(exclude).env'"];

describe.each(['process', 'bwrap'] as const)('everyday git in a repository that tracks a secret-named file, under %s', (mode: SandboxMode) => {
  const policy = loadPolicy();
  const run = (command: string, dir: string) => runCommand(command, { workspace: dir, timeoutMs: 30_000, outputCap: 50_000, mode, secretPaths: policy.secret_paths });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap()).each(EVERYDAY)('%s is allowed and runs, the secret withheld', async (command) => {
    for (const dir of [templateRepo(), secretRepo()]) {
      const decision = await decideShell(policy, command, dir, mode === 'bwrap' ? 'isolated' : 'process');
      expect(decision.decision, `${command}: ${decision.reason}`).toBe('allow');
      const result = await run(command, dir);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output).not.toContain(SECRET);
      if (command.startsWith('git diff') && !command.includes('--stat')) expect(result.output, command).toContain('+// changed');
      if (command === 'git diff --stat') expect(result.output).toMatch(/src\/app\.ts +\| 1 \+/);
      if (command === 'git grep -n TODO') expect(result.output).toContain('src/app.ts:1:// TODO');
    }
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('a pathspec that already leaves the secret out runs', async () => {
    const dir = secretRepo();
    const result = await run('git diff -- src', dir);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain('+// changed');
  });
});

const WITHHELD = /git: withheld from this output/;

describe.each(['process', 'bwrap'] as const)('the git shim judges a tracked template by its content, under %s', (mode: SandboxMode) => {
  const policy = loadPolicy();
  const run = (command: string, dir: string) => runCommand(command, { workspace: dir, timeoutMs: 30_000, outputCap: 50_000, mode, secretPaths: policy.secret_paths });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('a .env.example of placeholders is shown by diff, log -p, show and grep, with nothing withheld', async () => {
    const dir = templateRepo();
    const diff = await run('git diff', dir);
    expect(diff.exitCode, diff.output).toBe(0);
    expect(diff.output).toContain('+DEBUG=');
    expect(diff.output).not.toMatch(WITHHELD);
    for (const command of ['git log -p', 'git show', 'git grep -n OPENAI_API_KEY HEAD']) {
      const result = await run(command, dir);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output, command).toContain('OPENAI_API_KEY=your-key-here');
      expect(result.output, command).not.toMatch(WITHHELD);
    }
    // Beside a real .env, the template is still shown and the .env withheld.
    const both = repo({ '.env.example': 'OPENAI_API_KEY=your-key-here\n', '.env': `OPENAI_API_KEY=${SECRET}\n` }, { '.env.example': 'OPENAI_API_KEY=your-key-here\nDEBUG=\n', '.env': `OPENAI_API_KEY=${SECRET}\nMORE=1\n` });
    for (const command of ['git diff', 'git log -p', 'git grep -n OPENAI']) {
      const result = await run(command, both);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output, command).toContain(command === 'git diff' ? '+DEBUG=' : '.env.example');
      expect(result.output, command).not.toContain(SECRET);
      expect(result.output, command).toMatch(/withheld from this output: \.env and/);
    }
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('a template that holds, or once held, a real key is withheld like any secret', async () => {
    // A real key committed once, then replaced by a placeholder: the history still holds it.
    const committed = repo({ '.env.example': `OPENAI_API_KEY=${SECRET}\n`, 'src/app.ts': '// TODO: start\n' }, {});
    spawnSync('sh', ['-c', "printf 'OPENAI_API_KEY=your-key-here\n' > .env.example && git -c user.name=t -c user.email=t@t commit -qam placeholder"], { cwd: committed, env: { PATH: '/usr/bin:/bin', HOME: committed, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    // A placeholder template whose work-tree copy now holds a real key.
    const edited = repo({ '.env.example': 'OPENAI_API_KEY=your-key-here\n', 'src/app.ts': '// TODO: start\n' }, { '.env.example': `OPENAI_API_KEY=${SECRET}\n`, 'src/app.ts': '// TODO: start\n// changed\n' });
    for (const [dir, command] of [[committed, 'git log -p'], [committed, 'git grep -n -e OPENAI -e TODO HEAD~1'], [edited, 'git diff'], [edited, 'git grep -n -e OPENAI -e TODO']] as const) {
      const result = await run(command, dir);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output, command).not.toContain(SECRET);
      expect(result.output, command).toMatch(WITHHELD);
    }
  });
});

describe.each(['process', 'bwrap'] as const)('listings of a history where a secret was renamed away, under %s', (mode: SandboxMode) => {
  const policy = loadPolicy();
  it.skipIf(mode === 'bwrap' && !hasBubblewrap()).each(['git log --name-status', 'git log --raw', 'git whatchanged', 'git log --stat', 'git log --summary', 'git log --oneline --stat -M'])('%s runs, and scores no rename of the secret', async (command) => {
    // `.env` deleted and a file much like it added: rename detection would read the secret's blob
    // (masked under bubblewrap, so git stopped at it) and print how like the secret the new file is.
    const dir = repo({ '.env': `OPENAI_API_KEY=${SECRET}\nA=1\nB=2\n`, 'a.txt': 'one\n' }, {});
    spawnSync('sh', ['-c', "git rm -q .env && printf 'A=1\\nB=2\\nC=3\\n' > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm second"], { cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    const result = await runCommand(command, { workspace: dir, timeoutMs: 30_000, outputCap: 50_000, mode, secretPaths: policy.secret_paths });
    expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
    expect(result.output).toContain('b.txt');
    expect(result.output).not.toMatch(/R[0-9]{3}|=> b\.txt|rename/);
    expect(result.output).not.toContain(SECRET);
  });
});

describe.skipIf(!hasBubblewrap())('bubblewrap judges a template by its content', () => {
  it('a .env.example of placeholders is readable; one holding a real key is masked, in the work tree and in the objects', async () => {
    const secretPaths = loadPolicy().secret_paths;
    const plain = templateRepo();
    const shown = await runCommand('cat .env.example && git status --short', { workspace: plain, timeoutMs: 30_000, outputCap: 8000, mode: 'bwrap', secretPaths });
    expect(shown.exitCode, shown.output).toBe(0);
    expect(shown.output).toContain('OPENAI_API_KEY=your-key-here');
    expect(shown.output).toContain(' M .env.example');
    const real = repo({ '.env.example': `OPENAI_API_KEY=${SECRET}\n` }, {});
    const masked = await runCommand("cat .env.example; python3 -c \"import glob, zlib; print(b''.join(zlib.decompress(open(f, 'rb').read()) for f in glob.glob('.git/objects/??/*')))\"", { workspace: real, timeoutMs: 30_000, outputCap: 50_000, mode: 'bwrap', secretPaths });
    expect(masked.output).not.toContain(SECRET);
  });
});
