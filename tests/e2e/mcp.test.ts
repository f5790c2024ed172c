import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { TraceSchema, toolSpans, type Trace } from '../../src/schema/trace.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

const readTrace = (out: string, file: string): Trace => TraceSchema.parse(JSON.parse(readFileSync(path.join(out, file), 'utf8')));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('MCP tools through the harness', () => {
  it('the MCP suite passes: tools under the policy, in the trace like built-in tools, errors checked', async () => {
    const out = tempDir();
    const result = await runCli(['run', 'suites/mcp.jsonl', '--out', out, '-q', '--no-html']);
    expect(result.code, result.stdout.slice(-3000)).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.tasks.every((t) => t.status === 'passed')).toBe(true);
    const trace = (id: string) => readTrace(out, report.tasks.find((t) => t.id === id)!.trace_file!);

    const lookup = toolSpans(trace('mcp_lookup_ticket'))[0]!.attributes;
    expect(lookup).toMatchObject({ 'gen_ai.tool.name': 'tickets__lookup_ticket', 'tool.origin': 'mcp', 'mcp.server': 'tickets', policy_decision: 'allow', 'result.ok': true });
    expect(String(lookup['gen_ai.tool.call.result'])).toContain('Login button does nothing on Safari');
    expect(trace('mcp_lookup_ticket').spans.find((s) => s.kind === 'agent')!.attributes['mcp.servers']).toEqual(['tickets']);

    const missing = toolSpans(trace('mcp_unknown_ticket_recovers'))[0]!.attributes;
    expect(missing).toMatchObject({ error_type: 'TOOL_ERROR', 'result.ok': false, executed: true });
    const invalid = toolSpans(trace('mcp_invalid_arguments_corrected'))[0]!.attributes;
    expect(invalid).toMatchObject({ error_type: 'INVALID_ARGUMENTS', executed: false });
    const close = toolSpans(trace('mcp_close_needs_approval'))[0]!.attributes;
    expect(close).toMatchObject({ policy_decision: 'require_approval', approval_required: true, approved: false, executed: false });
    expect(toolSpans(trace('mcp_two_calls_in_one_reply')).map((s) => s.attributes['tool.call_index'])).toEqual([0, 1]);
  });

  it('redacts what a server returns, turns a slow call into COMMAND_TIMEOUT and isError into TOOL_ERROR', async () => {
    const secret = `tg-mcp-${Math.random().toString(36).slice(2)}${Date.now()}`;
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'mcp_faults', prompt: 'Get the deploy note.', expected_error_types: ['COMMAND_TIMEOUT', 'TOOL_ERROR'], max_steps: 3 }) + '\n');
    const policy = JSON.parse(readFileSync(path.join(ROOT, 'harness/policy/default-policy.json'), 'utf8'));
    policy.mcp_tools = 'allow';
    writeFileSync(path.join(dir, 'policy.json'), JSON.stringify(policy));
    writeFileSync(
      path.join(dir, 'variant.json'),
      JSON.stringify({
        schema_version: 'variant/v1',
        name: 'with-testkit',
        policy: 'policy.json',
        mcp_servers: [{ name: 'testkit', command: 'node', args: [path.join(ROOT, 'tests/helpers/mcpTestServer.mjs')], env: { DEPLOY_TOKEN: secret }, timeout_ms: 10_000 }],
      }),
    );
    const server = new FakeOpenAIServer((body, i) => {
      if (i === 0) {
        expect(body.tools!.map((t) => t.function.name)).toEqual(expect.arrayContaining(['read_file', 'testkit__deploy_note', 'testkit__slow', 'testkit__fail']));
        return { tool_calls: [{ name: 'testkit__deploy_note', arguments: '{}' }, { name: 'testkit__slow', arguments: '{"seconds": 30}' }, { name: 'testkit__fail', arguments: '{}' }] };
      }
      return { content: 'The note names a token; the slow tool timed out and the other failed.' };
    });
    const baseURL = await server.start();
    const out = path.join(dir, 'out');
    try {
      const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--model', 'm', '--base-url', baseURL, '--variant', path.join(dir, 'variant.json'), '--out', out, '-q', '--no-html'], {
        env: { DEPLOY_TOKEN: secret },
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      // The model was sent the tool's output (a live model sees it), but nothing on disk keeps it.
      expect(JSON.stringify(server.requests[1]!.body.messages)).toContain(secret);
    } finally {
      await server.stop();
    }
    const spans = toolSpans(readTrace(out, 'traces/mcp_faults.e0.json'));
    expect(spans.map((s) => s.attributes['error_type'] ?? null)).toEqual([null, 'COMMAND_TIMEOUT', 'TOOL_ERROR']);
    expect(String(spans[0]!.attributes['gen_ai.tool.call.result'])).toContain('[REDACTED');
    for (const file of filesUnder(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(secret);
  });
});
