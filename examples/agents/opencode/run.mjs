// OpenCode (opencode-ai 1.18.33) as a tracegate --agent-cmd: agent-input/v1 on stdin, agent-output/v1
// on stdout. OpenCode speaks Chat Completions through its bundled @ai-sdk/openai-compatible
// provider, pointed at the trial's capture proxy by a config file in the trial's own HOME
// (TRACEGATE_HOME). Headless (`opencode run --format json`), every tool allowed but web fetches,
// autoupdate, sharing and LSP downloads off. The binary comes from $TRACEGATE_AGENTS_DIR/opencode
// (examples/agents/install.sh).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const agents = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const home = process.env.TRACEGATE_HOME ?? path.join(os.tmpdir(), `tracegate-opencode-${process.pid}`);
mkdirSync(home, { recursive: true });
const model = process.env.OPENAI_MODEL || 'gpt-4o-mini';
const config = path.join(home, 'opencode.json');
writeFileSync(config, JSON.stringify({
  $schema: 'https://opencode.ai/config.json',
  autoupdate: false,
  share: 'disabled',
  provider: { tracegate: { npm: '@ai-sdk/openai-compatible', name: 'tracegate', options: { baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }, models: { [model]: { name: model } } } },
  model: `tracegate/${model}`,
  permission: { edit: 'allow', bash: 'allow', webfetch: 'deny' },
}));
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, '.config'),
  XDG_DATA_HOME: path.join(home, '.local', 'share'),
  XDG_CACHE_HOME: path.join(home, '.cache'),
  XDG_STATE_HOME: path.join(home, '.local', 'state'),
  OPENCODE_CONFIG: config,
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
};
const run = spawnSync(path.join(agents, 'opencode', 'node_modules', '.bin', 'opencode'), ['run', '--format', 'json', input.prompt], { cwd: input.workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
if (run.error) throw run.error;
// One JSON event a line: the answer is the text of the last step that said something.
let answer = '';
let step = '';
for (const line of run.stdout.split('\n')) {
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    continue;
  }
  if (event.type === 'step_start') step = '';
  if (event.type === 'text') step += event.part?.text ?? '';
  if (event.type === 'step_finish' && step) answer = step;
  if (event.type === 'error') process.stderr.write(`opencode: ${JSON.stringify(event.error)}\n`);
}
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: answer }) + '\n');
process.exitCode = run.status ?? 1;
