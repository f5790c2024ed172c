import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody, type ScriptedReply } from '../helpers/openaiServer.js';
import { AGENTS_DIR, readReport, REAL_SUITE as SUITE, verdicts, type RealReport as Report, EXPECTED_VERDICTS, itWithAgent, NO_PROVIDER_ENV, realAgentFlags } from '../helpers/realAgents.js';

/**
 * Real agents from the npm registry (examples/agents/install.sh, run by .ci/run) through tracegate:
 * recorded against a scripted loopback upstream that plays the model, then replayed with no upstream
 * in another run's trial folders with the agent's clock a day later.
 */
const UPSTREAM_KEY = 'sk-upstream-0123456789abcdefghijklmnop';

const AGENTS = [
  { name: 'langgraph', installed: 'langgraph/node_modules/@langchain/langgraph/package.json', cmd: 'node examples/agents/langgraph/agent.mjs' },
  { name: 'opencode', installed: 'opencode/node_modules/.bin/opencode', cmd: 'node examples/agents/opencode/run.mjs' },
  { name: 'qwen', installed: 'qwen/node_modules/.bin/qwen', cmd: 'node examples/agents/qwen/run.mjs' },
] as const;

const text = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

/**
 * The model: with a tool that reads files, read notes.txt in the trial's folder (as an absolute path
 * when the agent's prompt names its folder), then answer from what the tool gave back. A request
 * with no tools is a side request (a session title).
 */
function brain(body: ChatRequestBody): ScriptedReply {
  const tools = body.tools ?? [];
  if (tools.length === 0) return { content: 'Launch code lookup' };
  const all = body.messages.map((m) => text(m.content)).join('\n');
  const asked = [...body.messages].reverse().find((m) => m.role === 'user');
  const results = body.messages.filter((m) => m.role === 'tool').map((m) => text(m.content));
  if (results.length === 0) {
    const read = tools.find((t) => /^(read|read_file|Read)$/.test(t.function.name)) ?? tools.find((t) => /read/i.test(t.function.name));
    if (!read) return { content: 'I have no tool that reads files.' };
    const props = Object.keys((read.function.parameters as { properties?: object } | undefined)?.properties ?? {});
    const key = props.find((p) => /path/i.test(p)) ?? 'path';
    const folder = /\/[^\s"'`<>]*tracegate-run-[^\s"'`<>/]+\/\d+/.exec(all)?.[0];
    return { tool_calls: [{ name: read.function.name, arguments: JSON.stringify({ [key]: folder ? `${folder}/notes.txt` : 'notes.txt' }) }] };
  }
  const code = /AZURE-\d+/.exec(results.join('\n'))?.[0];
  if (!code) return { content: 'I could not read notes.txt.' };
  return { content: /backup code/.test(text(asked?.content)) ? `notes.txt has no backup code; it has only the launch code ${code}.` : `The launch code is ${code}.` };
}

const toolNames = (out: string, report: Report, id: string) => {
  const trace = JSON.parse(readFileSync(path.join(out, report.tasks.find((t) => t.id === id)!.trials[0]!.trace_file!), 'utf8')) as { spans: Array<{ kind: string; attributes: Record<string, unknown> }> };
  return trace.spans.filter((s) => s.kind === 'tool').map((s) => String(s.attributes['gen_ai.tool.name']));
};

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe.each(AGENTS)('real agent: $name', ({ name, installed, cmd }) => {
  itWithAgent(name, installed, 'records through the proxy, then replays with no upstream in new trial folders a day later', async () => {
    server = new FakeOpenAIServer(brain);
    const url = await server.start();
    const cassettes = path.join(tempDir(), 'cassettes');
    const live = tempDir();
    const common = realAgentFlags(cmd);
    const env = { ...NO_PROVIDER_ENV, TRACEGATE_AGENTS_DIR: AGENTS_DIR, OPENAI_API_KEY: UPSTREAM_KEY };
    const recorded = await runCli(['run', SUITE, ...common, '--base-url', url, '--record', cassettes, '--out', live, '--sandbox', 'process'], { env });
    const liveReport = readReport(live);
    expect(verdicts(liveReport), recorded.stderr).toEqual(EXPECTED_VERDICTS);
    expect(recorded.code).toBe(1);
    expect(liveReport.run.model.mode).toBe('recording');
    // The agent read notes.txt with a tool of its own (read, read_file, Read).
    expect(toolNames(live, liveReport, 'launch_code_001')).toContainEqual(expect.stringMatching(/read/i));
    expect(readdirSync(cassettes).sort()).toEqual(['backup_code_001.json', 'launch_code_001.json']);
    // The recording keeps the trial's folder as a placeholder, never the folder it ran in.
    expect(readFileSync(path.join(cassettes, 'launch_code_001.json'), 'utf8')).not.toMatch(/tracegate-run-\d+/);
    await server.stop();
    server = null;

    const replayed = tempDir();
    const again = await runCli(['run', SUITE, ...common, '--cassettes', cassettes, '--agent-clock', '+1d', '--out', replayed], { env: { ...env, OPENAI_API_KEY: '' } });
    const report = readReport(replayed);
    expect(verdicts(report), again.stderr).toEqual(EXPECTED_VERDICTS);
    expect(report.run.model.mode).toBe('replayed');
    expect(toolNames(replayed, report, 'launch_code_001')).toEqual(toolNames(live, liveReport, 'launch_code_001'));
  }, 480_000);
});
