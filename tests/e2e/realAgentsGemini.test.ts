import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasBubblewrap } from '../../harness/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { ProtocolServer, type ScriptedTurn } from '../helpers/protocolServers.js';
import { AGENTS_DIR, readReport, REAL_SUITE as SUITE, verdicts, type RealReport as Report, EXPECTED_VERDICTS, itWithAgent, NO_PROVIDER_ENV, realAgentFlags } from '../helpers/realAgents.js';

/**
 * Gemini CLI from the npm registry (examples/agents/install.sh, examples/agents/gemini/run.mjs)
 * through tracegate's Gemini front-end, in the style of realAgents.test.ts: recorded against a
 * scripted loopback Gemini API that plays the model, then replayed with no upstream in another run's
 * trial folders with the agent's clock a day later (under bubblewrap where it can run here).
 */
const UPSTREAM_KEY = 'AIzaUpstream0123456789abcdefghijklmnop';
const INSTALLED = 'gemini/node_modules/.bin/gemini';
const CMD = 'node examples/agents/gemini/run.mjs';
/** Every protocol's variables empty, so only what each run names is live. */
const offline = { ...NO_PROVIDER_ENV, GEMINI_MODEL: '' };

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * A side request asks for JSON by a schema (Gemini CLI's model router asks for a complexity score;
 * its next-speaker and loop checks ask likewise): the answer fills the schema's fields sensibly (a
 * simple task, the user speaks next, no loop). Without a schema it is a title.
 */
function sideAnswer(config: Obj): string {
  const schema = asObj(config['responseJsonSchema'] ?? config['responseSchema']);
  const props = asObj(schema['properties']);
  if (Object.keys(props).length === 0) return 'Launch code lookup';
  const filled = Object.fromEntries(Object.entries(props).map(([name, raw]) => {
    const prop = asObj(raw);
    const type = String(prop['type'] ?? '').toLowerCase();
    if (name === 'next_speaker') return [name, 'user'];
    if (Array.isArray(prop['enum'])) return [name, prop['enum'][0]];
    if (type === 'integer' || type === 'number') return [name, /complexity/.test(name) ? 10 : 0];
    if (type === 'boolean') return [name, false];
    return [name, 'A direct read of one file.'];
  }));
  return JSON.stringify(filled);
}

/**
 * The model: with a tool that reads files, read notes.txt in the trial's folder (its absolute path
 * from the workspace the CLI's session context names), then answer from what the tool gave back.
 */
function brain(body: Obj): ScriptedTurn {
  const declarations = asArr(body['tools']).flatMap((t) => asArr(asObj(t)['functionDeclarations'])).map(asObj);
  if (declarations.length === 0) return { text: sideAnswer(asObj(body['generationConfig'])) };
  const parts = asArr(body['contents']).flatMap((c) => asArr(asObj(c)['parts'])).map(asObj);
  const said = parts.map((p) => (typeof p['text'] === 'string' ? p['text'] : '')).join('\n');
  const results = parts.filter((p) => p['functionResponse']).map((p) => JSON.stringify(asObj(p['functionResponse'])['response'] ?? ''));
  if (results.length === 0) {
    const read = declarations.find((d) => d['name'] === 'read_file') ?? declarations.find((d) => /read/i.test(String(d['name'])));
    if (!read) return { text: 'I have no tool that reads files.' };
    const props = Object.keys(asObj(asObj(read['parametersJsonSchema'] ?? read['parameters'])['properties']));
    const key = props.find((p) => /path/i.test(p)) ?? 'file_path';
    const folder = /\/[^\s"'`<>]*tracegate-run-[^\s"'`<>/]+\/\d+/.exec(said)?.[0];
    return { calls: [{ id: 'call_read', name: String(read['name']), args: { [key]: folder ? `${folder}/notes.txt` : 'notes.txt' } }] };
  }
  const code = /AZURE-\d+/.exec(results.join('\n'))?.[0];
  if (!code) return { text: 'I could not read notes.txt.' };
  return { text: /backup code/.test(said) ? `notes.txt has no backup code; it has only the launch code ${code}.` : `The launch code is ${code}.` };
}

interface Span { kind: string; attributes: Record<string, unknown> }
const spans = (out: string, report: Report, id: string): Span[] =>
  (JSON.parse(readFileSync(path.join(out, report.tasks.find((t) => t.id === id)!.trials[0]!.trace_file!), 'utf8')) as { spans: Span[] }).spans;
const toolNames = (s: Span[]) => s.filter((x) => x.kind === 'tool').map((x) => x.attributes['gen_ai.tool.name']);

let server: ProtocolServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('real agent: gemini', () => {
  itWithAgent('gemini', INSTALLED, "records through the proxy's Gemini front-end, then replays with no upstream in new trial folders a day later", async () => {
    server = new ProtocolServer('gemini', brain);
    const url = await server.start();
    const cassettes = path.join(tempDir(), 'cassettes');
    const live = tempDir();
    const common = realAgentFlags(CMD);
    const env = { ...offline, TRACEGATE_AGENTS_DIR: AGENTS_DIR };
    const recorded = await runCli(['run', SUITE, ...common, '--gemini-base-url', url, '--record', cassettes, '--out', live, '--sandbox', 'process'], { env: { ...env, GEMINI_API_KEY: UPSTREAM_KEY } });
    const liveReport = readReport(live);
    expect(verdicts(liveReport), recorded.stderr).toEqual(EXPECTED_VERDICTS);
    expect(recorded.code).toBe(1);
    expect(liveReport.run.model.mode).toBe('recording');
    // The CLI's own calls reached the upstream in its protocol, with the real key in its header.
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts.some((r) => /\/v1beta\/models\/[^/:]+:streamGenerateContent\?alt=sse$/.test(r.url))).toBe(true);
    expect(posts.every((r) => r.headers['x-goog-api-key'] === UPSTREAM_KEY)).toBe(true);
    // Its model calls are llm spans, and its own read tool is a tool span whose result is the file.
    const liveSpans = spans(live, liveReport, 'launch_code_001');
    expect(liveSpans.filter((s) => s.kind === 'llm').length).toBeGreaterThanOrEqual(2);
    const tools = liveSpans.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => s.attributes['gen_ai.tool.name'])).toEqual(['read_file']);
    expect(String(tools[0]!.attributes['gen_ai.tool.call.result'])).toContain('AZURE-7');
    expect(readdirSync(cassettes).sort()).toEqual(['backup_code_001.json', 'launch_code_001.json']);
    // The recording keeps the trial's folder as a placeholder, never the folder it ran in, nor the key.
    const stored = readFileSync(path.join(cassettes, 'launch_code_001.json'), 'utf8');
    expect(stored).not.toMatch(/tracegate-run-\d+/);
    expect(stored).not.toContain(UPSTREAM_KEY);
    await server.close();
    server = null;

    const sandbox = hasBubblewrap() ? 'bwrap' : 'process';
    const replayed = tempDir();
    const again = await runCli(['run', SUITE, ...common, '--cassettes', cassettes, '--agent-clock', '+1d', '--out', replayed, '--sandbox', sandbox], { env });
    const report = readReport(replayed);
    expect(verdicts(report), again.stderr).toEqual(EXPECTED_VERDICTS);
    expect(report.run.model.mode).toBe('replayed');
    expect(report.run.sandbox).toMatch(sandbox === 'bwrap' ? /bubblewrap/ : /process/);
    expect(toolNames(spans(replayed, report, 'launch_code_001'))).toEqual(toolNames(liveSpans));

    // The CLI names its project folder in HOME after the trial folder's name (`~/.gemini/tmp/2`), which
    // is the trial's place in the run: alone, the second task runs in folder 1, and still replays.
    const alone = tempDir();
    const one = await runCli(['run', SUITE, ...common, '--grep', 'backup_code_001', '--cassettes', cassettes, '--agent-clock', '+1d', '--out', alone, '--sandbox', sandbox], { env });
    expect(verdicts(readReport(alone)), one.stderr).toEqual({ backup_code_001: 'failed:FINAL_ANSWER_INCOMPLETE' });
    // Two runs of a real CLI that starts slowly, on a loaded 2-core machine.
  }, 480_000);
});
