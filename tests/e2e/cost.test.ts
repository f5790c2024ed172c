import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_TABLE } from '../../src/judging/checks/priceTable.js';
import { RunReportSchema } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

describe('cost from the price table', () => {
  it('a run whose model is in the table carries its cost, with the table date, in report.json, summary.md and the diff', async () => {
    // Two model calls a trial, 100 prompt and 10 completion tokens each (the fake server's usage).
    const server = new FakeOpenAIServer((body) =>
      body.messages.some((m) => m.role === 'tool') ? { content: 'stockroom is an inventory service.' } : { tool_calls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] },
    );
    const baseURL = await server.start();
    try {
      const out = tempDir();
      const run = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'gpt-4o-mini', '--base-url', baseURL, '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
      const perTrial = (200 * 0.15 + 20 * 0.6) / 1_000_000;
      expect(report.tasks[0]!.trials[0]!.cost_usd).toBeCloseTo(perTrial, 12);
      expect(report.tasks[0]!.cost_usd).toBeCloseTo(perTrial, 12);
      expect(report.summary.cost).toMatchObject({ priced_trials: 1, trials: 1, as_of: DEFAULT_PRICE_TABLE.as_of });
      const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
      expect(summary).toContain(`**Cost:** $${perTrial.toPrecision(4)} over 1 of 1 trials (prices as of ${DEFAULT_PRICE_TABLE.as_of})`);

      // The HTML page carries the summary's cost and draws it as a card with the table's date.
      const html = readFileSync(path.join(out, 'report.html'), 'utf8');
      const page = JSON.parse(/id="tracegate-data">([^<]*)<\/script>/.exec(html)![1]!) as { report: { summary: { cost?: { usd: number; as_of: string } } } };
      expect(page.report.summary.cost).toMatchObject({ as_of: DEFAULT_PRICE_TABLE.as_of });
      expect(page.report.summary.cost!.usd).toBeCloseTo(perTrial, 12);
      expect(html).toContain("'cost (prices as of ' + s.cost.as_of + ')'");

      const diffed = await runCli(['diff', path.join(out, 'report.json'), path.join(out, 'report.json')]);
      expect(diffed.code, diffed.stderr).toBe(0);
      expect(diffed.stdout).toContain(`cost per trial: $${perTrial.toPrecision(4)} → $${perTrial.toPrecision(4)} (prices as of ${DEFAULT_PRICE_TABLE.as_of} / ${DEFAULT_PRICE_TABLE.as_of})`);
      expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/^\| cost_per_trial_usd \| /m);
      const withDiff = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
      const metric = withDiff.diff!.metrics.find((m) => m.name === 'cost_per_trial_usd')!;
      expect(metric).toMatchObject({ delta: 0, note: `prices as of ${DEFAULT_PRICE_TABLE.as_of} / ${DEFAULT_PRICE_TABLE.as_of}` });
      expect(metric.current).toBeCloseTo(perTrial, 12);

      // The gate's cost rule: the same model passes, a dearer one (gpt-4o) fails it.
      const gate = path.join(tempDir(), 'gate.json');
      writeFileSync(gate, JSON.stringify({ schema_version: 'gate/v1', max_cost_increase: 0.1 }));
      const baseline = path.join(tempDir(), 'baseline.json');
      copyFileSync(path.join(out, 'report.json'), baseline);
      const same = await runCli(['diff', path.join(out, 'report.json'), baseline, '--gate', gate]);
      expect(same.code, same.stdout + same.stderr).toBe(0);
      const dearer = tempDir();
      const run4o = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'gpt-4o', '--base-url', baseURL, '--out', dearer, '--no-html', '--baseline', baseline, '--gate', gate]);
      expect(run4o.code, run4o.stdout + run4o.stderr).toBe(1);
      const gated = RunReportSchema.parse(JSON.parse(readFileSync(path.join(dearer, 'report.json'), 'utf8')));
      const rule = gated.gate!.results.find((r) => r.rule === 'max_cost_increase')!;
      expect(rule.passed).toBe(false);
      expect(rule.actual).toBe('$0.00004200 → $0.0007000 (+1566.7%)');
    } finally {
      await server.stop();
    }
  });

  it('--price-table and the suite header price_table replace the shipped table; a bad table is exit 2 naming file and field', async () => {
    const server = new FakeOpenAIServer((body) => (body.messages.some((m) => m.role === 'tool') ? { content: 'stockroom is an inventory service.' } : { tool_calls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] }));
    const baseURL = await server.start();
    try {
      const dir = tempDir();
      const table = path.join(dir, 'prices.json');
      writeFileSync(table, JSON.stringify({ as_of: '2030-01-02', source: 'our contract', models: { 'house-model': { input: 1, output: 2 } } }));
      const out = tempDir();
      const flagged = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'house-model-v3', '--base-url', baseURL, '--price-table', table, '--out', out, '--no-html']);
      expect(flagged.code, flagged.stderr).toBe(0);
      const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
      expect(report.summary.cost).toMatchObject({ as_of: '2030-01-02', source: 'our contract', priced_trials: 1 });
      expect(report.summary.cost!.usd).toBeCloseTo((200 * 1 + 20 * 2) / 1_000_000, 12);

      const suite = path.join(dir, 'suite.jsonl');
      writeFileSync(suite, [JSON.stringify({ suite: { price_table: 'prices.json' } }), JSON.stringify({ id: 'one', prompt: 'read the readme' })].join('\n'));
      const out2 = tempDir();
      const headed = await runCli(['run', suite, '--model', 'house-model', '--base-url', baseURL, '--out', out2, '--no-html']);
      // Its task has no workspace (read_file fails), so the gate may fail it: only the cost matters here.
      expect([0, 1], headed.stderr).toContain(headed.code);
      expect(RunReportSchema.parse(JSON.parse(readFileSync(path.join(out2, 'report.json'), 'utf8'))).summary.cost?.as_of).toBe('2030-01-02');

      const bad = path.join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ as_of: '2030-01-02', models: { m: { input: -1, output: 1 } } }));
      const refused = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'm', '--base-url', baseURL, '--price-table', bad, '--out', tempDir(), '--no-html']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/bad\.json: field models\.m\.input:/);
    } finally {
      await server.stop();
    }
  });
});
