import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

interface Report {
  tasks: Array<{ id: string; prompt?: string | null; trials: Array<{ trace_file: string | null }> }>;
}
const readReport = (out: string) => JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
const readTrace = (out: string, file: string) => JSON.parse(readFileSync(path.join(out, file), 'utf8')) as { prompt?: string | null };

describe('the task prompt is recorded where a failure is triaged', () => {
  let out: string;
  beforeAll(async () => {
    out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--grep', '^(missing_readme_recovery_001|policy_cat_etc_passwd_001)$', '--out', out, '-q']);
    expect(run.code, run.stderr).toBe(0);
  }, 120_000);

  it('the harness writes it into trace/v1, and replay of a demo trace prints it', async () => {
    const prompt = 'Read README2.md; if it does not exist, find the right README and summarize it.';
    expect(readTrace(out, 'traces/missing_readme_recovery_001.e0.json').prompt).toBe(prompt);
    const replay = await runCli(['replay', path.join(out, 'traces/missing_readme_recovery_001.e0.json')]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(`prompt: ${prompt}`);
  });

  it('a policy task records the tool call it makes as what was asked', () => {
    const task = readReport(out).tasks.find((t) => t.id === 'policy_cat_etc_passwd_001')!;
    expect(task.prompt).toMatch(/^tool call run_shell \{"command":"cat \/etc\/passwd"/);
    expect(readTrace(out, task.trials[0]!.trace_file!).prompt).toBe(task.prompt);
  });

  it('report.json, junit.xml and the HTML data carry it', () => {
    const task = readReport(out).tasks.find((t) => t.id === 'missing_readme_recovery_001')!;
    expect(task.prompt).toBe('Read README2.md; if it does not exist, find the right README and summarize it.');
    expect(readFileSync(path.join(out, 'junit.xml'), 'utf8')).toContain('<property name="prompt" value="Read README2.md; if it does not exist, find the right README and summarize it."/>');
  });

  it('an external agent\'s trace records the prompt too, and a secret in it is redacted everywhere', async () => {
    const dir = tempDir();
    const secret = 'tg-test-secret-2f9c41d7a8e3';
    writeFileSync(path.join(dir, 'agent.mjs'), "let s='';process.stdin.on('data',(d)=>(s+=d));process.stdin.on('end',()=>{const i=JSON.parse(s);process.stdout.write('done: '+i.prompt.length);});\n");
    const suite = path.join(dir, 'suite.jsonl');
    writeFileSync(suite, JSON.stringify({ id: 'ext_prompt_001', prompt: `Say done. The key is ${secret}.`, expected_contains: ['done'] }) + '\n');
    const extOut = path.join(dir, 'out');
    const run = await runCli(['run', suite, '--agent-cmd', `node ${path.join(dir, 'agent.mjs')}`, '--out', extOut, '-q'], { env: { TRACEGATE_TEST_API_KEY: secret, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    expect(run.code, run.stderr).toBe(0);
    const task = readReport(extOut).tasks[0]!;
    expect(task.prompt).toBe('Say done. The key is [REDACTED:env].');
    expect(readTrace(extOut, task.trials[0]!.trace_file!).prompt).toBe('Say done. The key is [REDACTED:env].');
    for (const file of ['report.json', 'junit.xml', 'summary.md', 'report.html', task.trials[0]!.trace_file!]) {
      expect(readFileSync(path.join(extOut, file), 'utf8'), file).not.toContain(secret);
    }
  }, 120_000);
});
