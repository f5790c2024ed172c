import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { machine } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { ProtocolServer, type ScriptedTurn } from '../helpers/protocolServers.js';
import { AGENTS_DIR, readReport, REAL_SUITE as SUITE, verdicts, type RealReport as Report, EXPECTED_VERDICTS, itWithAgent, NO_PROVIDER_ENV, realAgentFlags } from '../helpers/realAgents.js';

/**
 * Claude Code from the npm registry (examples/agents/install.sh, run by .ci/run) through tracegate,
 * speaking Anthropic Messages (`HEAD /`, `POST /v1/messages?beta=true`, SSE): recorded against a
 * scripted loopback upstream that plays the model, then replayed with no upstream in another run's
 * trial folders, under bubblewrap, with the agent's clock a day later, as on a machine with another
 * kernel (Claude Code writes `OS Version: Linux <uname -r>` into its system prompt).
 */
const UPSTREAM_KEY = 'sk-ant-upstream-0123456789abcdefghijklmnop';
const INSTALLED = 'claude/node_modules/.bin/claude';
const CMD = 'node examples/agents/claude/run.mjs';

type Block = Record<string, unknown>;
const blocks = (content: unknown): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as Block[]) : []);
const blockText = (content: unknown): string => blocks(content).map((b) => (typeof b['text'] === 'string' ? b['text'] : '')).join('\n');

/**
 * The model, on the Messages request as Claude Code sends it: with a tool that reads files, read
 * notes.txt in the trial's folder (an absolute path, from the folder the system prompt names), then
 * answer from the tool_result it gets back. A request with no tools is a side request (a title, a
 * quota probe): a short text.
 */
function brain(body: Record<string, unknown>): ScriptedTurn {
  const tools = (body['tools'] as Array<{ name: string; input_schema?: { properties?: object } }> | undefined) ?? [];
  if (tools.length === 0) return { text: 'Launch code lookup' };
  const messages = (body['messages'] as Array<{ role: string; content: unknown }>) ?? [];
  const results = messages.flatMap((m) => blocks(m.content).filter((b) => b['type'] === 'tool_result').map((b) => blockText(b['content'])));
  if (results.length === 0) {
    const read = tools.find((t) => t.name === 'Read') ?? tools.find((t) => /read/i.test(t.name));
    if (!read) return { text: 'I have no tool that reads files.' };
    const key = Object.keys(read.input_schema?.properties ?? {}).find((p) => /path/i.test(p)) ?? 'file_path';
    const folder = /\/[^\s"'`<>\\]*tracegate-run-[^\s"'`<>/\\]+\/\d+/.exec(JSON.stringify([body['system'], messages]))?.[0];
    return { calls: [{ id: 'toolu_01', name: read.name, args: { [key]: folder ? `${folder}/notes.txt` : 'notes.txt' } }] };
  }
  const code = /AZURE-\d+/.exec(results.join('\n'))?.[0];
  if (!code) return { text: 'I could not read notes.txt.' };
  const asked = messages.filter((m) => m.role === 'user').map((m) => blockText(m.content)).join('\n');
  return { text: /backup code/.test(asked) ? `notes.txt has no backup code; it has only the launch code ${code}.` : `The launch code is ${code}.` };
}

interface Span {
  kind: string;
  attributes: Record<string, unknown>;
}
const spans = (out: string, report: Report, id: string): Span[] => {
  const file = report.tasks.find((t) => t.id === id)!.trials[0]!.trace_file!;
  return (JSON.parse(readFileSync(path.join(out, file), 'utf8')) as { spans: Span[] }).spans;
};
const toolNames = (s: Span[]) => s.filter((x) => x.kind === 'tool').map((x) => x.attributes['gen_ai.tool.name']);

/**
 * The CLI under setarch's UNAME26 personality: `uname -r` (and os.release()) read 2.6.x for
 * tracegate and the agent alike, as on another machine. util-linux ships setarch, and Docker's
 * default seccomp profile allows this personality.
 */
const UNAME26 = ['setarch', machine(), '--uname-2.6'];
function runCliOnOtherKernel(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(UNAME26[0]!, [...UNAME26.slice(1), process.execPath, BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let server: ProtocolServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('real agent: Claude Code (Anthropic Messages)', () => {
  itWithAgent('claude', INSTALLED, 'records through the proxy, then replays with no upstream in new trial folders a day later', async () => {
    server = new ProtocolServer('anthropic', brain);
    const url = await server.start();
    const cassettes = path.join(tempDir(), 'cassettes');
    const live = tempDir();
    const common = realAgentFlags(CMD);
    const env = { ...NO_PROVIDER_ENV, TRACEGATE_AGENTS_DIR: AGENTS_DIR, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: UPSTREAM_KEY };
    const recorded = await runCli(['run', SUITE, ...common, '--record', cassettes, '--out', live, '--sandbox', 'process'], { env });
    const liveReport = readReport(live);
    expect(verdicts(liveReport), recorded.stderr).toEqual(EXPECTED_VERDICTS);
    expect(recorded.code).toBe(1);
    expect(liveReport.run.model.mode).toBe('recording');
    // Claude Code's own traffic reached the upstream through the proxy, with the real key in its header.
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(4);
    expect(posts.every((r) => r.url.startsWith('/v1/messages') && r.headers['x-api-key'] === UPSTREAM_KEY)).toBe(true);
    // The trace has the model calls (two per task: the call to Read, the answer) and the Read.
    const liveSpans = spans(live, liveReport, 'launch_code_001');
    const llm = liveSpans.filter((s) => s.kind === 'llm');
    expect(llm.length).toBeGreaterThanOrEqual(2);
    expect(llm.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual(expect.arrayContaining([['tool_calls'], ['stop']]));
    expect(llm.every((s) => s.attributes['llm.streamed'] === true && Number(s.attributes['gen_ai.usage.input_tokens']) > 0)).toBe(true);
    const reads = liveSpans.filter((s) => s.kind === 'tool');
    expect(reads.map((s) => s.attributes['gen_ai.tool.name'])).toEqual(['Read']);
    expect(String(reads[0]!.attributes['gen_ai.tool.call.result'])).toContain('AZURE-7');
    expect(readdirSync(cassettes).sort()).toEqual(['backup_code_001.json', 'launch_code_001.json']);
    // The recording keeps the trial's folder as a placeholder, never the folder it ran in.
    expect(readFileSync(path.join(cassettes, 'launch_code_001.json'), 'utf8')).not.toMatch(/tracegate-run-\d+/);
    await server.close();
    server = null;

    const kernel = spawnSync(UNAME26[0]!, [...UNAME26.slice(1), 'uname', '-r'], { encoding: 'utf8' });
    expect(kernel.stdout, `setarch --uname-2.6 gives another kernel release: ${kernel.stderr}`).toMatch(/^2\.6\./);
    const replayed = tempDir();
    const again = await runCliOnOtherKernel(['run', SUITE, ...common, '--cassettes', cassettes, '--agent-clock', '+1d', '--sandbox', 'bwrap', '--out', replayed], { ...env, ANTHROPIC_BASE_URL: '', ANTHROPIC_API_KEY: '' });
    const report = readReport(replayed);
    expect(verdicts(report), again.stderr).toEqual(EXPECTED_VERDICTS);
    expect(report.run.model.mode).toBe('replayed');
    expect(report.run.sandbox).toMatch(/bubblewrap/);
    expect(toolNames(spans(replayed, report, 'launch_code_001'))).toEqual(toolNames(liveSpans));
  }, 480_000);
});
