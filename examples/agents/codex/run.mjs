// Codex (@openai/codex 0.171.0) as a tracegate --agent-cmd: agent-input/v1 on stdin, agent-output/v1
// on stdout. Codex speaks OpenAI Responses (SSE); a model provider in the trial's own CODEX_HOME
// (under TRACEGATE_HOME) points it at the trial's capture proxy (OPENAI_BASE_URL, key from
// OPENAI_API_KEY). Headless (`codex exec --json`), every command approved and Codex's own sandbox off
// (`danger-full-access`: tracegate sandboxes the agent), update checks, analytics and feedback off.
// Codex is a static musl binary, so --agent-clock's libfaketime does not reach it: its dates are
// today's, which the proxy blanks in cassette keys. The CLI comes from $TRACEGATE_AGENTS_DIR/codex
// (examples/agents/install.sh).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const agents = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const home = process.env.TRACEGATE_HOME ?? path.join(os.tmpdir(), `tracegate-codex-${process.pid}`);
const codexHome = path.join(home, '.codex');
mkdirSync(codexHome, { recursive: true });
// The model: `--model NAME` after the wrapper (`run.mjs --model gpt-6.2-sol`, which a replay keeps
// too), else OPENAI_MODEL (tracegate's --model), else one from Codex's own catalog, so its tool set
// (exec_command, apply_patch, …) does not change with the CLI's default model.
const flag = process.argv.indexOf('--model');
const model = (flag > 1 && process.argv[flag + 1]) || process.env.OPENAI_MODEL || 'gpt-5.5';
const toml = (s) => JSON.stringify(String(s));
writeFileSync(path.join(codexHome, 'config.toml'), [
  `model = ${toml(model)}`,
  'model_provider = "tracegate"',
  'approval_policy = "never"',
  'sandbox_mode = "danger-full-access"',
  'check_for_update_on_startup = false',
  '',
  '[model_providers.tracegate]',
  'name = "tracegate capture proxy"',
  `base_url = ${toml(process.env.OPENAI_BASE_URL ?? '')}`,
  'env_key = "OPENAI_API_KEY"',
  'wire_api = "responses"',
  // tracegate's proxy retries the upstream itself; a refusal must not be retried by the agent.
  'request_max_retries = 0',
  'stream_max_retries = 0',
  '',
  '[analytics]',
  'enabled = false',
  '',
  '[feedback]',
  'enabled = false',
  '',
].join('\n'));
const env = { ...process.env, HOME: home, CODEX_HOME: codexHome };
const run = spawnSync(
  path.join(agents, 'codex', 'node_modules', '.bin', 'codex'),
  ['exec', '--json', '--skip-git-repo-check', '--ephemeral', '--color', 'never', '-C', input.workspace, input.prompt],
  { cwd: input.workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
);
if (run.error) throw run.error;
// `--json`: one event a line; the answer is the last agent message, failures go to stderr.
let answer = '';
for (const line of run.stdout.split('\n')) {
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    continue;
  }
  if (event.type === 'item.completed' && event.item?.type === 'agent_message') answer = event.item.text ?? '';
  if (event.type === 'turn.failed' || event.type === 'error') process.stderr.write(`codex: ${JSON.stringify(event.error ?? event.message ?? event)}\n`);
}
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: answer }) + '\n');
process.exitCode = run.status ?? 1;
