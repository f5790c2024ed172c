import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, ROOT, tempDir } from '../helpers/cli.js';
import { ProtocolServer, type ScriptedTurn, type WireProtocol } from '../helpers/protocolServers.js';

/**
 * Agents on the official Responses, Anthropic and Gemini clients as --agent-cmd child processes:
 * recorded live through the capture proxy from a scripted loopback upstream (streamed), then
 * replayed from the cassettes with no upstream (unstreamed), with the same verdicts: a task whose
 * answer needs the tool's output passes, a task that expects a tool the agent never calls fails
 * TOOL_SELECTION_ERROR.
 */
const AGENT = path.join(ROOT, 'tests/fixtures/protocolAgents/agent.mjs');
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', GEMINI_API_KEY: '', GOOGLE_GEMINI_BASE_URL: '', GOOGLE_API_KEY: '' };

interface Report {
  run: { model: { mode: string; provider: string } };
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null; error: { code: string; message: string } | null }> }>;
}
const readReport = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
const verdicts = (r: Report) => Object.fromEntries(r.tasks.map((t) => [t.id, `${t.status}:${t.failure_reason ?? ''}`]));

/** The model: read note.txt, then answer with the code it read (so the answer needs the tool's output). */
const brain = (body: Record<string, unknown>): ScriptedTurn => {
  const seen = /the code is (\w+)/.exec(JSON.stringify(body));
  return seen ? { text: `The code is ${seen[1]}.` } : { calls: [{ id: 'toolu_01', name: 'read_file', args: { path: 'note.txt' } }] };
};

function suite(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'workspace'));
  writeFileSync(path.join(dir, 'workspace', 'note.txt'), 'the code is ZEBRA7\n');
  const lines = [
    { suite: { description: 'protocol agents' } },
    { id: 'code_001', prompt: 'What is the code in note.txt?', workspace: 'workspace', expected_contains: ['ZEBRA7'], expected_tools: ['read_file'], max_steps: 4 },
    { id: 'write_001', prompt: 'Write the code into out.txt.', workspace: 'workspace', expected_tools: ['write_file'], max_steps: 4 },
  ];
  writeFileSync(path.join(dir, 'suite.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path.join(dir, 'suite.jsonl');
}

const servers: ProtocolServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const CASES: Array<{ protocol: WireProtocol; env: (url: string) => Record<string, string>; keyHeader: string }> = [
  { protocol: 'responses', env: () => ({ OPENAI_API_KEY: 'sk-upstream-responses-0123456789' }), keyHeader: 'authorization' },
  { protocol: 'anthropic', env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-upstream-0123456789' }), keyHeader: 'x-api-key' },
  { protocol: 'gemini', env: () => ({ GEMINI_API_KEY: 'AIzaUpstream0123456789abc' }), keyHeader: 'x-goog-api-key' },
];

describe('agents on the Responses, Anthropic and Gemini clients through --agent-cmd', () => {
  for (const { protocol, env, keyHeader } of CASES) {
    it(`${protocol}: recorded streamed live, replayed unstreamed with no upstream, the same verdicts`, async () => {
      const upstream = new ProtocolServer(protocol, brain);
      servers.push(upstream);
      const url = await upstream.start();
      const file = suite();
      const cassettes = path.join(tempDir(), 'cassettes');
      const live = tempDir();
      // Anthropic's endpoint from its variable, Gemini's from its flag; no OpenAI endpoint is named or checked.
      const baseUrl = protocol === 'responses' ? ['--base-url', `${url}/v1`] : protocol === 'gemini' ? ['--gemini-base-url', url] : [];
      const recorded = await runCli(['run', file, '--agent-cmd', `node ${AGENT} ${protocol} stream`, ...baseUrl, '--record', cassettes, '--out', live, '--no-html'], { env: { ...offline, ...env(url) } });
      expect(recorded.stderr).not.toMatch(/errored/);
      expect(verdicts(readReport(live))).toEqual({ code_001: 'passed:', write_001: 'failed:TOOL_SELECTION_ERROR' });
      const posts = upstream.requests.filter((r) => r.method === 'POST');
      expect(posts.length).toBe(4);
      const realKey = Object.entries(env(url)).find(([k]) => k.endsWith('_KEY'))![1];
      expect(posts.every((r) => String(r.headers[keyHeader]).includes(realKey))).toBe(true);
      expect(readdirSync(cassettes).sort()).toEqual(['code_001.json', 'write_001.json']);

      const report = readReport(live);
      // The report names the API the run called, not OpenAI's for an Anthropic- or Gemini-only run.
      expect(report.run.model).toMatchObject({ provider: protocol === 'responses' ? 'openai' : protocol, mode: 'recording' });
      const trace = JSON.parse(readFileSync(path.join(live, report.tasks.find((t) => t.id === 'code_001')!.trials[0]!.trace_file!), 'utf8')) as { usage: { input_tokens: number }; spans: Array<{ kind: string; attributes: Record<string, unknown> }> };
      expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(2);
      expect(trace.spans.filter((s) => s.kind === 'tool').map((s) => [s.attributes['gen_ai.tool.name'], s.attributes['gen_ai.tool.call.result']])).toEqual([['read_file', 'the code is ZEBRA7\n']]);
      expect(trace.usage.input_tokens).toBeGreaterThan(0);

      await upstream.close();
      const replayed = tempDir();
      const again = await runCli(['run', file, '--agent-cmd', `node ${AGENT} ${protocol} json`, '--cassettes', cassettes, '--out', replayed, '--no-html'], { env: offline });
      expect(again.stderr).not.toMatch(/errored/);
      expect(readReport(replayed).run.model.mode).toBe('replayed');
      expect(verdicts(readReport(replayed))).toEqual(verdicts(readReport(live)));
    });
  }

  it('an agent calling an API the proxy does not speak is errored PROTOCOL_REFUSED naming it, not AGENT_CRASH; one that calls no model is NO_MODEL_REQUEST', async () => {
    const file = suite();
    const out = tempDir();
    await runCli(['run', file, '--agent-cmd', `node ${AGENT} embeddings json`, '--cassettes', tempDir(), '--out', out, '--no-html'], { env: offline });
    const refused = readReport(out).tasks.find((t) => t.id === 'code_001')!;
    expect(refused.status).toBe('errored');
    expect(refused.trials[0]!.error).toMatchObject({ code: 'PROTOCOL_REFUSED', message: expect.stringContaining('POST /v1/embeddings — the OpenAI Embeddings API —') });
    const quiet = tempDir();
    await runCli(['run', file, '--agent-cmd', `node ${AGENT} offline json`, '--cassettes', tempDir(), '--out', quiet, '--no-html'], { env: offline });
    expect(verdicts(readReport(quiet))).toEqual({ code_001: 'failed:NO_MODEL_REQUEST', write_001: 'failed:NO_MODEL_REQUEST' });
  });
});
