import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, ROOT, tempDir } from '../helpers/cli.js';
import { exampleBrain } from '../helpers/exampleBrain.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

/** The example agents as real child processes, through the capture proxy, live and replayed. */
const EXAMPLES = {
  python: { suite: 'examples/agents/python/suite.jsonl', cmd: 'python3 examples/agents/python/agent.py' },
  typescript: { suite: 'examples/agents/typescript/suite.jsonl', cmd: 'node dist/examples/agents/typescript/agent.js' },
} as const;

const UPSTREAM_KEY = 'sk-upstream-0123456789abcdefghijklmnop';
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };

interface Report {
  run: { model: { mode: string } };
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null }> }>;
}
const readReport = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
const verdicts = (r: Report) => Object.fromEntries(r.tasks.map((t) => [t.id, `${t.status}:${t.failure_reason ?? ''}`]));

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

const recording = process.env['RECORD_EXAMPLES'] === '1';

describe.skipIf(recording).each(Object.entries(EXAMPLES))('example agent: %s', (name, example) => {
  it('passes replayed from its committed cassettes with no network and no key, and its traces show every call', async () => {
    // What a fresh clone has: the cassettes and the baseline are tracked files.
    const tracked = execFileSync('git', ['ls-files', `examples/agents/${name}`], { cwd: ROOT, encoding: 'utf8' });
    expect(tracked).toMatch(/cassettes\/release_date_recovery_001\.json/);
    expect(tracked).toMatch(/baseline\.json/);
    const out = tempDir();
    const result = await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--out', out, '--no-html', '--baseline', `examples/agents/${name}/baseline.json`], { env: offline });
    expect(result.stderr).not.toMatch(/errored/);
    expect(result.code).toBe(0);
    const report = readReport(out);
    expect(report.run.model.mode).toBe('replayed');
    expect(Object.values(verdicts(report)).every((v) => v === 'passed:')).toBe(true);
    const recovery = report.tasks.find((t) => t.id === 'release_date_recovery_001')!;
    const trace = JSON.parse(readFileSync(path.join(out, recovery.trials[0]!.trace_file!), 'utf8')) as { spans: Array<{ kind: string; attributes: Record<string, unknown> }> };
    const conversation = trace.spans.filter((s) => s.kind === 'llm' && s.attributes['llm.side_request'] !== true);
    expect(conversation).toHaveLength(4);
    const tools = trace.spans.filter((s) => s.kind === 'tool').map((s) => s.attributes);
    expect(tools.map((a) => [a['gen_ai.tool.name'], a['gen_ai.tool.call.arguments']])).toEqual([
      ['read_file', '{"path": "NOTES.md"}'],
      ['list_files', '{"path": "."}'],
      ['read_file', '{"path": "docs/release-notes.md"}'],
    ]);
    expect(tools[0]).toMatchObject({ 'result.ok': false, error_type: 'FILE_NOT_FOUND' });
    expect(String(tools[1]!['gen_ai.tool.call.result'])).toContain('docs/release-notes.md');
    expect(String(tools[2]!['gen_ai.tool.call.result'])).toContain('2026-03-14');
    if (name === 'typescript') {
      // The title request is its own span, not a step of the conversation.
      expect(trace.spans.filter((s) => s.kind === 'llm' && s.attributes['llm.side_request'] === true)).toHaveLength(1);
    }
  });

  it('live against the loopback server through the proxy gives the same verdicts, and --record then --cassettes reproduces them with the server stopped', async () => {
    server = new FakeOpenAIServer((body) => exampleBrain(body));
    const url = await server.start();
    const live = tempDir();
    const cassettes = path.join(tempDir(), 'cassettes');
    const recorded = await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--base-url', url, '--record', cassettes, '--out', live, '--no-html'], { env: { ...offline, OPENAI_API_KEY: UPSTREAM_KEY } });
    expect(recorded.code).toBe(0);
    expect(readReport(live).run.model.mode).toBe('recording');
    // The upstream got the real key; the agent only ever sent its dummy one to the proxy.
    expect(server.requests.every((r) => r.headers['authorization'] === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    if (name === 'python') expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(readdirSync(cassettes).sort()).toEqual(['open_todos_001.json', 'project_name_001.json', 'release_date_recovery_001.json']);
    await server.stop();
    server = null;
    const replayed = tempDir();
    const again = await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--cassettes', cassettes, '--out', replayed, '--no-html'], { env: offline });
    expect(again.code).toBe(0);
    expect(verdicts(readReport(replayed))).toEqual(verdicts(readReport(live)));
    const committed = tempDir();
    await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--out', committed, '--no-html'], { env: offline });
    expect(verdicts(readReport(committed))).toEqual(verdicts(readReport(live)));
  });
});

// RECORD_EXAMPLES=1 npx vitest run tests/integration/exampleAgents.test.ts -t record  (after npm run build)
describe.runIf(recording)('record the committed example cassettes and baselines', () => {
  it.each(Object.entries(EXAMPLES))('record %s', async (name, example) => {
    server = new FakeOpenAIServer((body) => exampleBrain(body));
    const url = await server.start();
    const dir = path.join(ROOT, 'examples/agents', name, 'cassettes');
    for (const file of readdirSync(dir)) rmSync(path.join(dir, file));
    const out = tempDir();
    const result = await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--base-url', url, '--record', dir, '--out', out, '--no-html'], { env: { ...offline, OPENAI_API_KEY: UPSTREAM_KEY } });
    expect(result.code).toBe(0);
    // Say honestly where these came from: a scripted loopback server, not an LLM.
    for (const file of readdirSync(dir)) {
      const cassette = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { note: string };
      cassette.note = 'recorded through the capture proxy from the loopback test server scripted by tests/helpers/exampleBrain.ts (not an LLM)';
      writeFileSync(path.join(dir, file), JSON.stringify(cassette, null, 2) + '\n');
    }
    await server.stop();
    server = null;
    const replayed = tempDir();
    expect((await runCli(['run', example.suite, '--agent-cmd', example.cmd, '--out', replayed, '--no-html'], { env: offline })).code).toBe(0);
    const saved = await runCli(['baseline', 'save', path.join(replayed, 'report.json'), '--name', 'baseline', '--dir', path.join(ROOT, 'examples/agents', name)]);
    expect(saved.code).toBe(0);
    expect(existsSync(path.join(ROOT, 'examples/agents', name, 'baseline.json'))).toBe(true);
  });
});
