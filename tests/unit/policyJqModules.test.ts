import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, loadPolicy, runCommand } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * jq reads files through module directives (`import "P" as $d;`, `include "P";`) searched along
 * `-L` folders, a directive's own `{search: …}` metadata or jq's built-in list. Each refused case is
 * first run for real under the process sandbox, where jq prints a marker from a folder outside the
 * workspace, so the refusal closes a hole that exists; the allowed ones run and print what the
 * workspace's own modules define.
 */
let policy: Policy;
let ws: string;
let outside: string;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];

beforeAll(() => {
  policy = loadPolicy();
  outside = realpathSync(tempDir('tracegate-jq-outside-'));
  writeFileSync(path.join(outside, 'data.json'), '{"marker": "OUTSIDE-DATA-MARKER"}\n');
  writeFileSync(path.join(outside, 'm.jq'), 'def f: "OUTSIDE-MODULE-MARKER";\n');
  ws = realpathSync(tempDir('tracegate-jq-ws-'));
  mkdirSync(path.join(ws, 'lib'));
  writeFileSync(path.join(ws, 'lib', 'util.jq'), 'def g: "INSIDE-MODULE";\n');
  writeFileSync(path.join(ws, 'lib', 'data.json'), '{"inside": true}\n');
  writeFileSync(path.join(ws, 'lib', 'chain.jq'), `include "m" {search: ${JSON.stringify(outside)}};\ndef g: f;\n`);
  writeFileSync(path.join(ws, 'prog.jq'), `import "data" as $d {search: ${JSON.stringify(outside)}};\n$d\n`);
  writeFileSync(path.join(ws, 'tsconfig.json'), '{"include": ["src"], "import": 1}\n');
});

const run = (command: string) => runCommand(command, { workspace: ws, timeoutMs: 60_000, outputCap: 8000, mode: 'process' });

describe('jq module directives cannot read outside the workspace', () => {
  const refused = (o: string) => [
    { command: `jq -n 'import "data" as $d {search: "${o}"}; $d'`, marker: 'OUTSIDE-DATA-MARKER' },
    { command: `jq -n 'include "m" {search: "${o}"}; f'`, marker: 'OUTSIDE-MODULE-MARKER' },
    { command: `jq -n 'include "m" {search: ["lib", "${o}"]}; f'`, marker: 'OUTSIDE-MODULE-MARKER' },
    { command: `jq -n '# a comment\n  import "data" as $d {"search": "${o}"};\n$d'`, marker: 'OUTSIDE-DATA-MARKER' },
    { command: `jq -n -L lib 'include "chain"; g'`, marker: 'OUTSIDE-MODULE-MARKER' },
    { command: `jq -n -Llib 'include "chain"; g'`, marker: 'OUTSIDE-MODULE-MARKER' },
    { command: `jq -n -f prog.jq`, marker: 'OUTSIDE-DATA-MARKER' },
    { command: `jq -L ${o} -n 'include "m"; f'`, marker: 'OUTSIDE-MODULE-MARKER' },
    { command: `jq -n -L lib/../../${path.basename(o)} 'include "m"; f'`, marker: null },
  ];

  it('each refused case reads the outside marker when run without the policy', async () => {
    for (const { command, marker } of refused(outside)) {
      if (marker === null) continue;
      const r = await run(command);
      expect(r.output, command).toContain(marker);
    }
  });

  for (const sandbox of SANDBOXES) {
    it(`${sandbox}: refuses (or asks about) every directive that may reach outside`, async () => {
      for (const { command } of refused(outside)) {
        const d = await decideShell(policy, command, ws, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).not.toBe('allow');
      }
    });

    it(`${sandbox}: asks when jq's built-in search list (~/.jq, /usr/lib/jq) or a runtime module name is in play`, async () => {
      for (const command of [
        `jq -n 'include "util"; g'`,
        `jq -n 'import "x" as x {search: "~/"}; .'`,
        `jq -n 'import "x" as x {search: "$ORIGIN/../lib"}; .'`,
        `jq -n '"util" | modulemeta' -L lib`,
        `jq -n 'import "da\\(1)ta" as $d; .'`,
        `jq -n '# comment \\\nimport "data" as $d {search: "${outside}"}; $d'`,
        `jq -n '1 as $x | import "data" as $d; $d'`,
        `jq -n -L "$HOME" 'include "m"; f'`,
      ]) {
        const d = await decideShell(policy, command, ws, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).not.toBe('allow');
      }
    });

    it(`${sandbox}: ordinary filters and workspace modules stay allowed`, async () => {
      for (const command of [
        `jq .include tsconfig.json`,
        `jq '.import, {include: 1}, "import x"' tsconfig.json`,
        `jq -n -L lib 'include "util"; g'`,
        `jq -n -L lib 'import "util" as u; u::g'`,
        `jq -n -L lib 'import "data" as $d; $d'`,
        `jq -n 'include "util" {search: "./lib"}; g'`,
        `jq -n --arg p /etc/passwd '$p'`,
        `jq -r --args -n '$ARGS.positional[]' /etc/a /etc/b`,
      ]) {
        const d = await decideShell(policy, command, ws, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).toBe('allow');
      }
    });
  }

  it('the allowed workspace modules run', async () => {
    expect((await run(`jq -n -L lib 'include "util"; g'`)).output).toContain('INSIDE-MODULE');
    expect((await run(`jq -n 'include "util" {search: "./lib"}; g'`)).output).toContain('INSIDE-MODULE');
  });

  it('a module the same command writes is not trusted', async () => {
    const d = await decideShell(policy, `echo 'include "m" {search: "${outside}"}; def g: f;' > lib/new.jq && jq -n -L lib 'include "new"; g'`, ws, 'process');
    expect(d.decision).not.toBe('allow');
  });
});
