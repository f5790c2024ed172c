import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { ProtocolServer, type ScriptedTurn } from '../helpers/protocolServers.js';
import { AGENTS_DIR, readReport, REAL_SUITE as SUITE, verdicts, type RealReport as Report, EXPECTED_VERDICTS, itWithAgent, NO_PROVIDER_ENV, realAgentFlags } from '../helpers/realAgents.js';

/**
 * The OpenAI Agents SDK and the Vercel AI SDK from the npm registry (examples/agents/install.sh), each
 * at its default protocol, OpenAI Responses, through tracegate: recorded against a scripted loopback
 * Responses upstream that plays the model, then replayed with no upstream in another run's trial
 * folders, under bubblewrap, with the agent's clock a day later.
 */
const UPSTREAM_KEY = 'sk-upstream-0123456789abcdefghijklmnop';

const AGENTS = [
  // run() asks for a whole response (JSON), streamText() for a stream (SSE).
  { name: 'OpenAI Agents SDK', installed: 'agents/node_modules/@openai/agents/package.json', cmd: 'node examples/agents/agents-sdk/agent.mjs', streamed: false },
  { name: 'Vercel AI SDK', installed: 'agents/node_modules/@ai-sdk/openai/package.json', cmd: 'node examples/agents/ai-sdk/agent.mjs', streamed: true },
] as const;

type Item = Record<string, unknown>;
const list = (v: unknown): Item[] => (Array.isArray(v) ? (v as Item[]) : []);
const textOf = (item: Item): string => (typeof item['content'] === 'string' ? item['content'] : list(item['content']).map((p) => String(p['text'] ?? '')).join(''));

/**
 * The model: with a read_file tool, read notes.txt by its absolute path in the folder the agent's
 * instructions name (so the recorded call names the trial's folder), then answer from what the tool
 * gave back. A request with no tools is a side request.
 */
function brain(body: Record<string, unknown>, index: number): ScriptedTurn {
  const read = list(body['tools']).find((t) => t['name'] === 'read_file');
  if (!read) return { text: 'I have no tool that reads files.' };
  const input = list(body['input']);
  const results = input.filter((i) => i['type'] === 'function_call_output').map((i) => (typeof i['output'] === 'string' ? i['output'] : JSON.stringify(i['output'])));
  if (results.length === 0) {
    const folder = /\/[^\s"'`<>]*tracegate-run-[^\s"'`<>/]+\/\d+/.exec(JSON.stringify(body))?.[0];
    return { calls: [{ id: `call_${index}`, name: 'read_file', args: { path: folder ? `${folder}/notes.txt` : 'notes.txt' } }] };
  }
  const code = /AZURE-\d+/.exec(results.join('\n'))?.[0];
  if (!code) return { text: 'I could not read notes.txt.' };
  const asked = input.filter((i) => i['role'] === 'user').map(textOf).at(-1) ?? '';
  return { text: /backup code/.test(asked) ? `notes.txt has no backup code; it has only the launch code ${code}.` : `The launch code is ${code}.` };
}

interface Trace {
  spans: Array<{ kind: string; attributes: Record<string, unknown> }>;
}
const traceOf = (out: string, report: Report, id: string) =>
  JSON.parse(readFileSync(path.join(out, report.tasks.find((t) => t.id === id)!.trials[0]!.trace_file!), 'utf8')) as Trace;

let server: ProtocolServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe.each(AGENTS)('real agent: $name (OpenAI Responses)', ({ name, installed, cmd, streamed }) => {
  itWithAgent(name, installed, 'records through the proxy, then replays with no upstream in new trial folders a day later', async () => {
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
    // Every model call reached the upstream as a Responses call, streamed as the SDK asks, with the real key.
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBe(4);
    expect(posts.every((r) => r.url === '/v1/responses' && (r.body['stream'] === true) === streamed && r.headers['authorization'] === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    const trace = traceOf(live, liveReport, 'launch_code_001');
    expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(2);
    const tools = trace.spans.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => s.attributes['gen_ai.tool.name'])).toEqual(['read_file']);
    expect(String(tools[0]!.attributes['gen_ai.tool.call.result'])).toContain('AZURE-7');
    expect(readdirSync(cassettes).sort()).toEqual(['backup_code_001.json', 'launch_code_001.json']);
    // The recording keeps the trial's folder as a placeholder, never the folder it ran in.
    const recording = readFileSync(path.join(cassettes, 'launch_code_001.json'), 'utf8');
    expect(recording).not.toMatch(/tracegate-run-\d+/);
    expect(recording).toContain('<tracegate:workspace>/notes.txt');
    await server.close();
    server = null;

    const replayed = tempDir();
    const again = await runCli(['run', SUITE, ...common, '--cassettes', cassettes, '--agent-clock', '+1d', '--sandbox', 'bwrap', '--out', replayed], { env: { ...env, OPENAI_API_KEY: '' } });
    const report = readReport(replayed);
    expect(verdicts(report), again.stderr).toEqual(EXPECTED_VERDICTS);
    expect(report.run.model.mode).toBe('replayed');
    const replayedTools = traceOf(replayed, report, 'launch_code_001').spans.filter((s) => s.kind === 'tool');
    expect(replayedTools.map((s) => s.attributes['gen_ai.tool.name'])).toEqual(['read_file']);
    // The recorded call's folder became the new trial's, so the tool read the new trial's notes.txt.
    expect(String(replayedTools[0]!.attributes['gen_ai.tool.call.result'])).toContain('AZURE-7');
  }, 480_000);
});
