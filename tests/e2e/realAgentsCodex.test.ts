import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { ProtocolServer, type ScriptedTurn } from '../helpers/protocolServers.js';
import { AGENTS_DIR, readReport, REAL_SUITE as SUITE, verdicts, type RealReport as Report, EXPECTED_VERDICTS, itWithAgent, NO_PROVIDER_ENV, realAgentFlags } from '../helpers/realAgents.js';

/**
 * Codex (@openai/codex 0.171.0 from the npm registry, examples/agents/install.sh) through tracegate
 * with examples/agents/codex/run.mjs: it speaks OpenAI Responses over SSE. Recorded against a
 * scripted loopback Responses upstream that plays the model, then replayed with no upstream in
 * another run's trial folders, under bubblewrap, with the agent's clock a day later (which Codex's
 * static binary does not see: its dates are blanked in the cassette key instead).
 */
const UPSTREAM_KEY = 'sk-upstream-0123456789abcdefghijklmnop';
const INSTALLED = 'codex/node_modules/.bin/codex';
const CMD = 'node examples/agents/codex/run.mjs';

type Item = Record<string, unknown>;
const list = (v: unknown): Item[] => (Array.isArray(v) ? (v as Item[]) : []);
const items = (body: Record<string, unknown>): Item[] => list(body['input']);
const textOf = (item: Item): string => (typeof item['content'] === 'string' ? item['content'] : list(item['content']).map((p) => String(p['text'] ?? '')).join(''));

/** The tools a request offers, also those of an `additional_tools` item and inside namespaces (Codex's code mode). */
const toolsOf = (body: Record<string, unknown>): Item[] => {
  const flat = (tools: Item[]): Item[] => tools.flatMap((t) => (t['type'] === 'namespace' ? flat(list(t['tools'])) : [t]));
  return flat([...list(body['tools']), ...items(body).filter((i) => i['type'] === 'additional_tools').flatMap((i) => list(i['tools']))]);
};
const outputText = (output: unknown): string => (typeof output === 'string' ? output : list(output).map((p) => String(p['text'] ?? '')).join('\n'));

/**
 * The model: run `cat notes.txt` with Codex's own shell tool, in the workspace Codex runs in — the
 * `exec_command` function tool, or in code mode (no function tools, a custom `exec` tool that runs
 * JavaScript) through `tools.exec_command` — then answer from what the tool gave back.
 */
function brain(body: Record<string, unknown>, index: number): ScriptedTurn {
  const tools = toolsOf(body);
  const input = items(body);
  const results = input.filter((i) => i['type'] === 'function_call_output' || i['type'] === 'custom_tool_call_output').map((i) => outputText(i['output']));
  if (results.length === 0) {
    if (list(body['tools']).some((t) => t['name'] === 'exec_command')) return { calls: [{ id: `call_${index}`, name: 'exec_command', args: { cmd: 'cat notes.txt' } }] };
    if (tools.some((t) => t['type'] === 'custom' && t['name'] === 'exec')) return { customCalls: [{ id: `call_${index}`, name: 'exec', input: 'const r = await tools.exec_command({ cmd: "cat notes.txt" });\ntext(JSON.stringify(r));' }] };
    return { text: 'I have no tool that runs commands.' };
  }
  const code = /AZURE-\d+/.exec(results.join('\n'))?.[0];
  if (!code) return { text: 'I could not read notes.txt.' };
  const asked = input.filter((i) => i['type'] === 'message' && i['role'] === 'user').map(textOf).at(-1) ?? '';
  return { text: /backup code/.test(asked) ? `notes.txt has no backup code; it has only the launch code ${code}.` : `The launch code is ${code}.` };
}

interface Trace {
  spans: Array<{ kind: string; attributes: Record<string, unknown> }>;
}
const traceOf = (out: string, report: Report, id: string) =>
  JSON.parse(readFileSync(path.join(out, report.tasks.find((t) => t.id === id)!.trials[0]!.trace_file!), 'utf8')) as Trace;
const toolNames = (trace: Trace) => trace.spans.filter((s) => s.kind === 'tool').map((s) => s.attributes['gen_ai.tool.name']);

let server: ProtocolServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/**
 * The wrapper's default model (gpt-5.5) gets function tools (`exec_command`, …); Codex's own default
 * (gpt-6.2-sol) gets code mode: its tools in an `additional_tools` input item, one custom `exec` tool.
 */
const MODES = [
  { mode: 'function tools', cmd: CMD, model: 'gpt-5.5', tool: 'exec_command' },
  { mode: 'code mode', cmd: `${CMD} --model gpt-6.2-sol`, model: 'gpt-6.2-sol', tool: 'exec' },
] as const;

describe.each(MODES)('real agent: codex (OpenAI Responses, SSE), $mode', ({ cmd, model, tool }) => {
  itWithAgent('codex', INSTALLED, 'records through the proxy, then replays with no upstream in new trial folders a day later', async () => {
    server = new ProtocolServer('responses', brain);
    const url = await server.start();
    const cassettes = path.join(tempDir(), 'cassettes');
    const live = tempDir();
    const common = realAgentFlags(cmd);
    const env = { ...NO_PROVIDER_ENV, TRACEGATE_AGENTS_DIR: AGENTS_DIR, OPENAI_API_KEY: UPSTREAM_KEY };
    const recorded = await runCli(['run', SUITE, ...common, '--base-url', `${url}/v1`, '--record', cassettes, '--out', live, '--sandbox', 'process'], { env });
    const liveReport = readReport(live);
    expect(verdicts(liveReport), recorded.stderr).toEqual(EXPECTED_VERDICTS);
    expect(recorded.code).toBe(1);
    expect(liveReport.run.model.mode).toBe('recording');
    // Codex called the upstream through the proxy (streamed, with the real key), twice a task.
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBe(4);
    expect(posts.every((r) => r.url.endsWith('/v1/responses') && r.body['stream'] === true && r.headers['authorization'] === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    const trace = traceOf(live, liveReport, 'launch_code_001');
    const llm = trace.spans.filter((s) => s.kind === 'llm');
    expect(llm).toHaveLength(2);
    expect(llm.every((s) => s.attributes['gen_ai.request.model'] === model)).toBe(true);
    const tools = trace.spans.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => s.attributes['gen_ai.tool.name'])).toEqual([tool]);
    expect(String(tools[0]!.attributes['gen_ai.tool.call.result'])).toContain('AZURE-7');
    expect(readdirSync(cassettes).sort()).toEqual(['backup_code_001.json', 'launch_code_001.json']);
    // The recording keeps the trial's folder and HOME as placeholders, never the folders it ran in.
    expect(readFileSync(path.join(cassettes, 'launch_code_001.json'), 'utf8')).not.toMatch(/tracegate-run-\d+/);
    await server.close();
    server = null;

    const replayed = tempDir();
    const again = await runCli(['run', SUITE, ...common, '--cassettes', cassettes, '--agent-clock', '+1d', '--sandbox', 'bwrap', '--out', replayed], { env: { ...env, OPENAI_API_KEY: '' } });
    const report = readReport(replayed);
    expect(verdicts(report), again.stderr).toEqual(EXPECTED_VERDICTS);
    expect(report.run.model.mode).toBe('replayed');
    expect(toolNames(traceOf(replayed, report, 'launch_code_001'))).toEqual([tool]);
  }, 480_000);
});
