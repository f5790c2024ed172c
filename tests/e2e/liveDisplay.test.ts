import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

const PTY = path.join(ROOT, 'tests/helpers/onPty.py');
/** Generous: the machine is shared; nothing here waits on a clock, only on what the CLI prints. */
const WAIT_MS = 90_000;

/**
 * An agent that finishes only when the test hands it a token (a file it renames away), so the test
 * decides when each trial ends and can look at the screen in between.
 */
function gatedAgent(dir: string): { cmd: string; release: () => void } {
  const token = path.join(dir, 'go');
  writeFileSync(
    path.join(dir, 'agent.mjs'),
    `import { renameSync } from 'node:fs';
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const { task_id } = JSON.parse(input);
  const poll = setInterval(() => {
    try { renameSync(${JSON.stringify(token)}, ${JSON.stringify(token)} + '-' + task_id); } catch { return; }
    clearInterval(poll);
    process.stdout.write('done with ' + task_id + '\\n');
  }, 20);
});
`,
  );
  return { cmd: `${process.execPath} ${path.join(dir, 'agent.mjs')}`, release: () => writeFileSync(token, '') };
}

/** The CLI on a real pseudo-terminal (tests/helpers/onPty.py), with a way to wait for what it prints. */
function onTerminal(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };
  delete env['CI'];
  delete env['GITHUB_ACTIONS'];
  Object.assign(env, extraEnv);
  const child = spawn('python3', [PTY, process.execPath, BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (d) => {
    screen += d;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on('data', (d) => (screen += d));
  let closed = false;
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
    closed = true;
    for (const w of waiters.splice(0)) w();
    resolve(code);
  }));
  /** Resolves with the screen so far once it matches; fails (with the screen) if the program ends first or stalls. */
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${pattern} on the terminal after ${WAIT_MS} ms:\n${screen}`)), WAIT_MS);
      const check = () => {
        if (pattern.test(screen)) {
          clearTimeout(timer);
          resolve(screen);
        } else if (closed) {
          clearTimeout(timer);
          reject(new Error(`the run ended without ${pattern}:\n${screen}`));
        } else waiters.push(check);
      };
      check();
    });
  return { waitFor, exited, screen: () => screen };
}

describe('a run a person can watch', () => {
  it('on a terminal: the header comes before the first trial ends, then one status line whose counts move', async () => {
    const dir = tempDir();
    const suite = path.join(dir, 'suite.jsonl');
    writeFileSync(suite, ['one', 'two', 'three'].map((id) => JSON.stringify({ id, prompt: 'Say done.', expected_contains: ['done'] })).join('\n') + '\n');
    const agent = gatedAgent(dir);
    const run = onTerminal(['run', suite, '--agent-cmd', agent.cmd, '--sandbox', 'process', '-j', '1', '--out', path.join(dir, 'out'), '--no-html']);

    // The first trial is running and cannot end until released: the header and a status line are already there.
    const first = await run.waitFor(/0\/3 done · 0 passed · 0 failed · 0 errored · 1 in flight/);
    expect(first).toMatch(/tracegate run: 3 tasks × 1 epoch = 3 trials, concurrency 1\r?\n {2}model: {3}.+\r?\n {2}agent: {3}--agent-cmd .+agent\.mjs \(policy .+; sandbox process group\)\r?\n {2}suites: {2}.+suite\.jsonl\r?\n {2}gate: {4}defaults: .+\r?\n {2}output: {2}.+out\r?\n/);
    expect(first.indexOf('tracegate run:')).toBeLessThan(first.indexOf('0/3 done'));
    expect(first).not.toMatch(/\[1\/3\]/);
    // The status line is redrawn in place (carriage return, erase line), not printed as new lines.
    expect(first).toContain('\r\u001b[2K0/3 done');

    agent.release();
    const second = await run.waitFor(/1\/3 done · 1 passed · 0 failed · 0 errored · 1 in flight · ETA \d/);
    // The finished trial's line is printed above the status line, which then shows the new counts.
    expect(second).toMatch(/\r\u001b\[2K\[1\/3\] passed {2}one\r?\n\r\u001b\[2K\d\/3 done/);

    agent.release();
    await run.waitFor(/2\/3 done · 2 passed/);
    agent.release();
    expect(await run.exited, run.screen()).toBe(0);
    expect(run.screen()).toMatch(/3\/3 done · 3 passed · 0 failed · 0 errored · 0 in flight/);
    // The summary comes after the live display is put away, not interleaved with it.
    expect(run.screen().lastIndexOf('3/3 done')).toBeLessThan(run.screen().indexOf('pass rate'));
  }, 4 * WAIT_MS);

  it('on a terminal, --reporter line (and CI) print plain lines: no status line redrawn in place', async () => {
    const dir = tempDir();
    const suite = path.join(dir, 'suite.jsonl');
    writeFileSync(suite, ['a', 'b'].map((id) => JSON.stringify({ id, tool_call: { name: 'calculator', arguments: { expression: '1+1' } } })).join('\n') + '\n');
    for (const [extra, env] of [[['--reporter', 'line'], {}], [[], { CI: 'true' }]] as const) {
      const run = onTerminal(['run', suite, '--out', path.join(dir, `out-${extra.length}`), '--no-html', ...extra], env);
      expect(await run.exited, run.screen()).toBe(0);
      expect(run.screen()).toMatch(/tracegate run: 2 tasks[^\n]*\r?\n(.*\r?\n){5}\[1\/2\] passed {2}[ab]\r?\n\[2\/2\] passed {2}[ab]\r?\n/);
      expect(run.screen()).not.toContain('\u001b[2K');
      expect(run.screen()).not.toContain('in flight');
    }
  }, 2 * WAIT_MS);
});

