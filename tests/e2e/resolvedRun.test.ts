import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/** One task without its own max_steps, and a script cassette that would take two steps (a tool call, then an answer). */
function twoStepSuite(dir: string): string {
  writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'sum', prompt: 'Add 2 and 3.', expected_contains: ['5'] }) + '\n');
  mkdirSync(path.join(dir, 'cassettes'));
  writeFileSync(
    path.join(dir, 'cassettes/sum.json'),
    JSON.stringify({
      schema_version: 'cassette/v1', kind: 'script', task_id: 'sum', model: 'sum-script',
      interactions: [
        { response: { content: null, tool_calls: [{ name: 'calculator', arguments: { operation: 'add', a: 2, b: 3 } }] } },
        { response: { content: 'The sum is 5.', tool_calls: [] } },
      ],
    }),
  );
  return path.join(dir, 'suite.jsonl');
}

const settingsOf = (out: string) => (JSON.parse(readFileSync(path.join(out, 'run-settings.json'), 'utf8')) as { settings: Record<string, string> }).settings;
const reportOf = (out: string) =>
  JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { run: { selection?: { max_steps: number | null } }; tasks: { trials: { steps?: number; exit_reason?: string }[] }[] };

describe('the run is resolved once: a variant\'s max_steps is what runs and what is recorded', () => {
  it('a variant with max_steps 1 cuts the trial at step 1 and records 1 in run-settings.json and the report; the flag wins over it', async () => {
    const dir = tempDir();
    const suite = twoStepSuite(dir);
    writeFileSync(path.join(dir, 'variant.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'one-step', max_steps: 1 }));
    const out = path.join(dir, 'out');
    const cut = await runCli(['run', suite, '--cassettes', path.join(dir, 'cassettes'), '--variant', path.join(dir, 'variant.json'), '--out', out, '-q', '--no-html']);
    expect(cut.code, cut.stderr).toBe(1);
    expect(settingsOf(out)['max_steps']).toBe('1');
    const report = reportOf(out);
    expect(report.run.selection?.max_steps).toBe(1);
    const trace = JSON.parse(readFileSync(path.join(out, 'traces/sum.e0.json'), 'utf8')) as { final_answer: { exit_reason: string } };
    expect(trace.final_answer.exit_reason).toBe('max_steps');

    // Without the variant the default holds, recorded as the default; the trial completes in two steps.
    const plain = path.join(dir, 'plain');
    const whole = await runCli(['run', suite, '--cassettes', path.join(dir, 'cassettes'), '--out', plain, '-q', '--no-html']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(settingsOf(plain)['max_steps']).toBe('default (10)');
    expect(reportOf(plain).run.selection?.max_steps).toBe(10);

    // --max-steps wins over the variant's.
    const flagged = path.join(dir, 'flagged');
    const over = await runCli(['run', suite, '--cassettes', path.join(dir, 'cassettes'), '--variant', path.join(dir, 'variant.json'), '--max-steps', '3', '--out', flagged, '-q', '--no-html']);
    expect(over.code, over.stderr).toBe(0);
    expect(settingsOf(flagged)['max_steps']).toBe('3');
  });
});
