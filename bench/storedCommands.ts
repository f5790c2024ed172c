/**
 * npm run bench (stored-data part): `score`, `diff` and `report` of a 10,000-task run against
 * reading their input. The run is made once (agent tasks against a zero-latency loopback server);
 * then each command and its floor run as children under GNU time, alternating, three times each.
 * A floor is a Node process that reads and parses what the command reads: every trace file for
 * `score`, the report and its baseline for `diff`, the report for `report`. Start-up is in both.
 * BENCH_STORED_TASKS sets the run's size (default 10000).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { BENCH_CLI } from './benchCli.js';
import { startInstantServer } from './instantServer.js';
import { median, runMeasured, spread } from './processUsage.js';

const TASKS = Number(process.env['BENCH_STORED_TASKS'] ?? 10_000);
const RUNS = 3;

/** The floors: read and parse what each command reads, nothing else. */
const READ_TRACES = "const fs=require('fs'),p=require('path');const d=process.argv[1];for(const f of fs.readdirSync(d))if(f.endsWith('.json'))JSON.parse(fs.readFileSync(p.join(d,f),'utf8'))";
const READ_JSON_FILES = "const fs=require('fs');for(const f of process.argv.slice(1))JSON.parse(fs.readFileSync(f,'utf8'))";

const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-stored-'));
try {
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, Array.from({ length: TASKS }, (_, i) => JSON.stringify({ id: `stored_${i}`, prompt: `Say ok (${i}).`, expected_contains: ['ok'], max_steps: 2, tags: [`group_${i % 20}`] })).join('\n') + '\n');
  const run = path.join(dir, 'run');
  // Every fifth task fails its check, so the reports carry failures to classify and show.
  const server = await startInstantServer((n) => (n % 5 === 0 ? 'no' : 'ok, done'));
  const made = await runMeasured(process.execPath, [BENCH_CLI, 'run', suite, '--model', 'bench', '--base-url', server.url, '-j', '50', '--out', run, '-q', '--no-html'], { env: { ...process.env, OPENAI_API_KEY: 'bench' } });
  server.close();
  // Exit 1: the failing fifth fails the gate, as intended.
  if (made.code !== 0 && made.code !== 1) throw new Error(`the run exited ${made.code}: ${made.stderr.slice(-1000)}`);
  const report = path.join(run, 'report.json');

  const pairs = [
    { name: 'score (judge every stored trace, write every report)', command: [BENCH_CLI, 'score', suite, '--traces', path.join(run, 'traces'), '-o', path.join(dir, 'scored'), '--no-html'], floor: ['-e', READ_TRACES, path.join(run, 'traces')] },
    { name: 'diff (report against a baseline, gate, rewrite the reports)', command: [BENCH_CLI, 'diff', report, report, '-o', path.join(dir, 'diffed'), '--no-html'], floor: ['-e', READ_JSON_FILES, report, report] },
    { name: 'report (render report.html again)', command: [BENCH_CLI, 'report', report, '--out', path.join(dir, 'page.html')], floor: ['-e', READ_JSON_FILES, report] },
  ];
  const load = loadavg()[0]!.toFixed(2);
  const walls = pairs.map(() => ({ command: [] as number[], floor: [] as number[] }));
  for (let i = 0; i < RUNS; i++) {
    for (const [n, pair] of pairs.entries()) {
      const measured = await runMeasured(process.execPath, pair.command);
      // diff and score exit 1 when the failing fifth fails their gate; that is not a failure to run.
      if (measured.code !== 0 && measured.code !== 1) throw new Error(`${pair.name} exited ${measured.code}: ${measured.stderr.slice(-1000)}`);
      walls[n]!.command.push(measured.wall_s);
      const floor = await runMeasured(process.execPath, pair.floor);
      if (floor.code !== 0) throw new Error(`the floor of ${pair.name} exited ${floor.code}: ${floor.stderr.slice(-500)}`);
      walls[n]!.floor.push(floor.wall_s);
    }
  }
  console.log(`8. stored-data commands on a ${TASKS.toLocaleString()}-task run, against a Node process reading and parsing their input (median of ${RUNS} alternating pairs; load ${load} at the start)`);
  console.log('   | command | wall | reading its input | ratio | target |');
  console.log('   | --- | ---: | ---: | ---: | ---: |');
  for (const [n, pair] of pairs.entries()) {
    const { command, floor } = walls[n]!;
    const ratio = median(command) / median(floor);
    console.log(`   | ${pair.name} | ${spread(command)} s | ${spread(floor)} s | ${ratio.toFixed(2)} | ≤ 2${ratio <= 2 ? ' ✓' : ''} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
