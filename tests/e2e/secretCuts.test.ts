import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const KEY = `sk-proj-${'Zq8'.repeat(10)}`;
const ENV_SECRET = 'Wv7-Qx3Kp9-Jr5Lm2-Yb4';
/** `filler` long enough that `secret` starts `before` characters ahead of `cut`. */
const straddle = (cut: number, secret: string, before = 5, offset = 0) => `${'.'.repeat(cut - before - offset)}${secret}`;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

describe('secrets at every cut', () => {
  it('no preview the harness or the judge cuts leaves part of a secret in any artifact', async () => {
    const dir = tempDir();
    const ws = path.join(dir, 'ws');
    mkdirSync(ws);
    // read_file's result preview is cut at 2000 characters.
    writeFileSync(path.join(ws, 'notes.txt'), straddle(2000, KEY));
    // The model reply preview is cut at 2000, tool arguments at 4000 (the JSON starts `{"path":"`), the answer preview at 300.
    const server = new FakeOpenAIServer((_body, i) =>
      i === 0
        ? {
            content: straddle(2000, ENV_SECRET),
            tool_calls: [
              { name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) },
              { name: 'read_file', arguments: JSON.stringify({ path: straddle(4000, KEY, 5, 9) }) },
            ],
          }
        : { content: `${straddle(300, KEY, 6)} and ${ENV_SECRET}` },
    );
    servers.push(server);
    const baseUrl = await server.start();
    const suite = path.join(dir, 'suite.jsonl');
    writeFileSync(suite, JSON.stringify({ id: 'leaky', prompt: 'Read notes.txt.', workspace: 'ws', expected_tools: ['read_file'], tags: [KEY] }) + '\n');
    const out = tempDir();
    const result = await runCli(['run', suite, '--model', 'm', '--base-url', baseUrl, '--out', out, '-q'], { env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000', MY_SERVICE_TOKEN: ENV_SECRET } });
    expect([0, 1], result.stderr).toContain(result.code);

    const written = files(out);
    expect(written.some((f) => f.endsWith('.json') && f.includes('traces'))).toBe(true);
    const trace = readFileSync(written.find((f) => f.includes('traces'))!, 'utf8');
    // The cuts really were inside the secrets (the previews exist and are cut).
    expect(trace).toMatch(/"llm\.content_preview": ?"\.{1990,}/);
    expect(trace).toMatch(/"(?:result\.preview|gen_ai\.tool\.call\.result)": ?"\.{1990,}/);
    for (const file of written) {
      const text = readFileSync(file, 'utf8');
      for (const secret of [KEY.slice(8), ENV_SECRET]) {
        for (let i = 0; i + 4 <= secret.length; i += 2) expect(text, `${path.relative(out, file)} shows ${secret.slice(i, i + 4)}`).not.toContain(secret.slice(i, i + 4));
      }
    }
  });
});
