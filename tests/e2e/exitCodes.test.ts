import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';

/**
 * Each command's `--help` lists its exit codes; every code listed is produced here by a real
 * invocation, and no command has a scenario for a code its help does not list.
 */
const dir = tempDir('tracegate-exit-');
const at = (...p: string[]) => path.join(dir, ...p);
const policyTask = (id: string, decision: string) => JSON.stringify({ id, tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: decision });

function writeFixtures(): void {
  // 20 tasks, so that all of them failing is a regression any gate sees against a baseline where all pass.
  writeFileSync(at('pass.jsonl'), Array.from({ length: 20 }, (_, i) => policyTask(`t${i}`, 'allow')).join('\n'));
  writeFileSync(at('agent.jsonl'), JSON.stringify({ id: 'agent', prompt: 'hi' }));
  mkdirSync(at('no-cassettes'));
  const strict = JSON.parse(readFileSync('harness/policy/default-policy.json', 'utf8')) as { shell: { allow: string[]; default: string } };
  strict.shell.allow = strict.shell.allow.filter((p) => p !== 'ls');
  strict.shell.default = 'deny';
  writeFileSync(at('strict.json'), JSON.stringify(strict));
  writeFileSync(at('a.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'a' }));
  writeFileSync(at('b-strict.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'b', policy: 'strict.json' }));
  writeFileSync(at('b-same.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'b' }));
  writeFileSync(at('a-cassettes.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'a', cassettes: 'no-cassettes' }));
  writeFileSync(at('b-cassettes.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'b', cassettes: 'no-cassettes' }));
}

async function code(args: string[]): Promise<number | null> {
  const result = await runCli([...args, ...(args[0] === 'run' ? ['-q', '--no-html'] : [])]);
  return result.code;
}

/** Runs the reports the other commands read: a passing run, a regressed one, one where every trial errored, shards. */
async function seedRuns(): Promise<void> {
  const runs: Array<[string[], number]> = [
    [['run', at('pass.jsonl'), '--out', at('pass')], 0],
    [['run', at('pass.jsonl'), '--policy', at('strict.json'), '--out', at('regressed')], 1],
    [['run', at('agent.jsonl'), '--cassettes', at('no-cassettes'), '--out', at('errored')], 3],
    [['run', at('pass.jsonl'), '--shard', '1/1', '--out', at('shard-pass')], 0],
    [['run', at('pass.jsonl'), '--policy', at('strict.json'), '--shard', '1/1', '--out', at('shard-fail')], 1],
    [['run', at('agent.jsonl'), '--cassettes', at('no-cassettes'), '--shard', '1/1', '--out', at('shard-errored')], 3],
  ];
  for (const [args, expected] of runs) expect(await code(args), args.join(' ')).toBe(expected);
  for (const [report, name] of [['pass', 'pass'], ['errored', 'errored']]) {
    expect(await code(['baseline', 'save', at(report, 'report.json'), '--name', name, '--dir', at('baselines')])).toBe(0);
  }
}

const scenarios: Record<string, Partial<Record<0 | 1 | 2 | 3, () => string[]>>> = {
  run: {
    0: () => ['run', at('pass.jsonl'), '--out', at('o-run0')],
    1: () => ['run', at('pass.jsonl'), '--policy', at('strict.json'), '--out', at('o-run1')],
    2: () => ['run', at('missing.jsonl'), '--out', at('o-run2')],
    3: () => ['run', at('agent.jsonl'), '--cassettes', at('no-cassettes'), '--out', at('o-run3')],
  },
  compare: {
    0: () => ['compare', at('pass.jsonl'), '--a', at('a.json'), '--b', at('b-same.json'), '--out', at('o-cmp0'), '-q', '--no-html'],
    1: () => ['compare', at('pass.jsonl'), '--a', at('a.json'), '--b', at('b-strict.json'), '--out', at('o-cmp1'), '-q', '--no-html'],
    2: () => ['compare', at('pass.jsonl'), '--a', at('a.json'), '--out', at('o-cmp2')],
    3: () => ['compare', at('agent.jsonl'), '--a', at('a-cassettes.json'), '--b', at('b-cassettes.json'), '--out', at('o-cmp3'), '-q', '--no-html'],
  },
  validate: { 0: () => ['validate', at('pass.jsonl')], 2: () => ['validate', at('missing.jsonl')] },
  replay: { 0: () => ['replay', at('pass', 'traces', 't0.e0.json')], 2: () => ['replay', at('pass.jsonl')] },
  'baseline save': {
    0: () => ['baseline', 'save', at('pass', 'report.json'), '--name', 'again', '--dir', at('baselines')],
    2: () => ['baseline', 'save', at('pass', 'report.json'), '--name', 'a b', '--dir', at('baselines')],
  },
  report: { 0: () => ['report', at('pass', 'report.json'), '--out', at('page.html')], 2: () => ['report', at('missing.json')] },
  diff: {
    0: () => ['diff', at('pass', 'report.json'), at('baselines', 'pass.json'), '--out', at('o-diff0')],
    1: () => ['diff', at('regressed', 'report.json'), at('baselines', 'pass.json'), '--out', at('o-diff1')],
    2: () => ['diff', at('pass', 'report.json')],
    3: () => ['diff', at('errored', 'report.json'), at('baselines', 'errored.json'), '--out', at('o-diff3')],
  },
  merge: {
    0: () => ['merge', at('shard-pass'), '--out', at('o-merge0')],
    1: () => ['merge', at('shard-fail'), '--out', at('o-merge1')],
    2: () => ['merge', at('missing'), '--out', at('o-merge2')],
    3: () => ['merge', at('shard-errored'), '--out', at('o-merge3')],
  },
  import: { 0: () => ['import', 'tests/fixtures/traces/genai-otlp.jsonl', '--out', at('o-import0')], 2: () => ['import', at('pass.jsonl'), '--out', at('o-import2')] },
  score: {
    0: () => ['score', at('pass.jsonl'), '--traces', at('pass', 'traces'), '--out', at('o-score0')],
    1: () => ['score', at('pass.jsonl'), '--traces', at('regressed', 'traces'), '--out', at('o-score1')],
    2: () => ['score', at('agent.jsonl'), '--traces', at('pass', 'traces'), '--out', at('o-score2')],
    3: () => ['score', at('agent.jsonl'), '--traces', at('errored', 'traces'), '--out', at('o-score3')],
  },
  export: {
    0: () => ['export', at('pass'), '--otlp', at('spans.jsonl')],
    2: () => ['export', at('missing'), '--otlp', at('spans.jsonl')],
    // Port 9 (discard) on loopback: nothing listens, the endpoint does not take them.
    3: () => ['export', at('pass'), '--otlp-endpoint', 'http://127.0.0.1:9/v1/traces'],
  },
};

async function documentedCodes(command: string): Promise<number[]> {
  const help = await runCli([...command.split(' '), '--help']);
  expect(help.code).toBe(0);
  const line = /Exit codes: ([^\n]*(?:\n(?!\n)[^\n]*)*)/.exec(help.stdout)?.[1];
  expect(line, `${command} --help names its exit codes`).toBeDefined();
  return [...line!.matchAll(/(?:^|, )([0-3]) /g)].map((m) => Number(m[1]));
}

describe("every command's documented exit codes, against behaviour", () => {
  beforeAll(async () => {
    writeFixtures();
    await seedRuns();
  }, 240_000);

  for (const [command, byCode] of Object.entries(scenarios)) {
    it(`${command}: the codes --help lists are the codes it exits with`, async () => {
      const documented = await documentedCodes(command);
      expect(documented.sort()).toEqual(Object.keys(byCode).map(Number).sort());
      for (const [expected, args] of Object.entries(byCode)) expect(await code(args!()), args!().join(' ')).toBe(Number(expected));
    }, 180_000);
  }
});

describe('run --timeout, as run --help words it', () => {
  it('a harness task over its limit is errored TASK_TIMEOUT; an external agent is stopped a margin before it (20%, 0.25 to 2 s) and failed AGENT_TIMEOUT', async () => {
    const help = (await runCli(['run', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('a harness task over it is errored TASK_TIMEOUT');
    expect(help).toContain('an external agent (--agent-cmd, --agent-url) is stopped a margin before it (20% of it, 0.25 to 2 s) and failed AGENT_TIMEOUT');

    const suites = tempDir();
    // The shell's own limit is far above the task's, so the task's limit is what ends it.
    writeFileSync(path.join(suites, 'slow.jsonl'), JSON.stringify({ id: 'slow', tool_call: { name: 'run_shell', arguments: { command: 'sleep 60' } }, shell_timeout_ms: 120_000 }));
    writeFileSync(path.join(suites, 'agent.jsonl'), JSON.stringify({ id: 'slow_agent', prompt: 'wait' }));
    const harnessOut = tempDir();
    expect(await code(['run', path.join(suites, 'slow.jsonl'), '--timeout', '1500', '--sandbox', 'process', '--out', harnessOut])).toBe(3);
    const harness = RunReportSchema.parse(JSON.parse(readFileSync(path.join(harnessOut, 'report.json'), 'utf8'))).tasks[0]!;
    expect(harness.status).toBe('errored');
    expect(harness.error).toMatchObject({ code: 'TASK_TIMEOUT', message: 'task did not finish within 1500 ms' });

    const agentOut = tempDir();
    expect(await code(['run', path.join(suites, 'agent.jsonl'), '--agent-cmd', 'sleep 60', '--timeout', '5000', '--out', agentOut])).toBe(1);
    const trial = RunReportSchema.parse(JSON.parse(readFileSync(path.join(agentOut, 'report.json'), 'utf8'))).tasks[0]!.trials[0]!;
    expect(trial.status).toBe('failed');
    expect(trial.failure_reason).toBe('AGENT_TIMEOUT');
    // 20% of 5000 ms is 1000 ms, within 0.25 to 2 s: the agent is killed at 4000 ms.
    expect(trial.evidence.map((e) => e.detail)).toContain('the agent hung: killed after 4000 ms');
  }, 120_000);
});
