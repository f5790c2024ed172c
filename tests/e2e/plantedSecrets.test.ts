import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';
import { PLANTED_SECRETS, escapedForms, sensitiveParts } from '../helpers/plantedSecrets.js';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

/** Every planted secret, raw, after each escape, and JSON-escaped once and twice. */
const ALL = PLANTED_SECRETS.map((s) => s.text).join('\n');
const NOTES = [ALL, PLANTED_SECRETS.map((s) => `x\t${s.text}`).join(' '), ...escapedForms(ALL), ...escapedForms(`note\t${ALL}\u001b`)].join('\n') + '\n';

/** A `head -c` through the middle of a key: ten characters past its prefix. */
function cutThrough(family: string): number {
  const planted = PLANTED_SECRETS.find((s) => s.family === family)!;
  return Buffer.byteLength(NOTES.slice(0, NOTES.indexOf(planted.text) + planted.prefix!.length + 10));
}

function expectNoSecret(where: string, text: string): void {
  for (const planted of PLANTED_SECRETS) {
    for (const part of sensitiveParts(planted)) expect(text, `${where} shows ${planted.family} (${part})`).not.toContain(part);
  }
}

describe('planted secrets of every family', () => {
  it('reach no file that run, replay, export, report and a recording write, nor any output', async () => {
    const dir = tempDir();
    const ws = path.join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'notes.txt'), NOTES);
    const server = new FakeOpenAIServer((_body, i) =>
      i === 0
        ? {
            content: `I will look.\n${ALL}\n${escapedForms(ALL).join('\n')}`,
            tool_calls: [
              { name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) },
              { name: 'run_shell', arguments: JSON.stringify({ command: `head -c ${cutThrough('github classic')} notes.txt` }) },
              { name: 'run_shell', arguments: JSON.stringify({ command: `head -c ${cutThrough('stripe secret')} notes.txt` }) },
              { name: 'run_shell', arguments: JSON.stringify({ command: `printf '%s\\n' "${PLANTED_SECRETS[1]!.text}"\n# ${ALL}` }) },
            ],
          }
        : { content: `Done.\n${ALL}\n${escapedForms(ALL).join('\t')}` },
    );
    servers.push(server);
    const baseUrl = await server.start();
    const suite = path.join(dir, 'suite.jsonl');
    const tasks = [
      { id: 'agent_leak', prompt: 'Read notes.txt.', workspace: 'ws', expected_contains: ['Done'] },
      { id: 'policy_cat', tool_call: { name: 'run_shell', arguments: { command: 'cat notes.txt' } }, workspace: 'ws', expected_policy: 'allow' },
      { id: 'policy_cut', tool_call: { name: 'run_shell', arguments: { command: `head -c ${cutThrough('anthropic')} notes.txt` } }, workspace: 'ws', expected_policy: 'allow' },
      { id: 'policy_args', tool_call: { name: 'run_shell', arguments: { command: `echo "${escapedForms(ALL)[0]}"` } }, workspace: 'ws', expected_policy: 'allow' },
    ];
    writeFileSync(suite, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const out = path.join(dir, 'out');
    const cassettes = path.join(dir, 'cassettes');
    const env = { OPENAI_API_KEY: 'sk-test-not-real-000000000000' };
    const outputs: Array<[string, CliResult]> = [];
    const run = await runCli(['run', suite, '--model', 'm', '--base-url', baseUrl, '--record', cassettes, '--out', out], { env });
    expect([0, 1], run.stderr).toContain(run.code);
    outputs.push(['run', run]);

    const traces = files(path.join(out, 'traces'));
    expect(traces.length).toBe(4);
    // The secrets really went in: the read and the shell output are in the trace (redacted).
    const agentTrace = readFileSync(traces.find((f) => f.includes('agent_leak'))!, 'utf8');
    expect(agentTrace).toContain('[REDACTED:github_token]');
    for (const trace of traces) outputs.push([`replay ${path.basename(trace)}`, await runCli(['replay', trace])]);
    const otlp = path.join(dir, 'export.otlp.jsonl');
    outputs.push(['export', await runCli(['export', out, '--otlp', otlp])]);
    outputs.push(['report', await runCli(['report', path.join(out, 'report.json')])]);
    for (const [name, result] of outputs) {
      expect(result.code, `${name}: ${result.stderr}`).not.toBe(2);
      expectNoSecret(`${name} stdout`, result.stdout);
      expectNoSecret(`${name} stderr`, result.stderr);
    }
    const written = [...files(out), ...files(cassettes), otlp];
    expect(written.some((f) => f.endsWith('report.html'))).toBe(true);
    expect(written.some((f) => f.startsWith(cassettes))).toBe(true);
    for (const file of written) expectNoSecret(path.relative(dir, file), readFileSync(file, 'utf8'));
  }, 180_000);
});
