// Qwen Code (@qwen-code/qwen-code 0.24.4) as a tracegate --agent-cmd: agent-input/v1 on stdin,
// agent-output/v1 on stdout. Chat Completions (`--auth-type openai`) to the trial's capture proxy
// (OPENAI_BASE_URL / OPENAI_API_KEY), headless (`--output-format json`), every tool approved
// (`--approval-mode yolo`), in the trial's own HOME (TRACEGATE_HOME) with a settings file that turns
// telemetry, usage statistics and update checks off. The CLI comes from $TRACEGATE_AGENTS_DIR/qwen
// (examples/agents/install.sh).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const agents = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const home = process.env.TRACEGATE_HOME ?? path.join(os.tmpdir(), `tracegate-qwen-${process.pid}`);
mkdirSync(path.join(home, '.qwen'), { recursive: true });
writeFileSync(path.join(home, '.qwen', 'settings.json'), JSON.stringify({
  security: { auth: { selectedType: 'openai' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
}));
const model = process.env.OPENAI_MODEL || 'gpt-4o-mini';
const env = { ...process.env, HOME: home, OPENAI_MODEL: model, QWEN_TELEMETRY_ENABLED: 'false', NO_BROWSER: '1' };
const run = spawnSync(
  path.join(agents, 'qwen', 'node_modules', '.bin', 'qwen'),
  ['--auth-type', 'openai', '--approval-mode', 'yolo', '--output-format', 'json', '-m', model, input.prompt],
  { cwd: input.workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
);
if (run.error) throw run.error;
// `--output-format json`: one JSON array of events (or one object); the answer is the `result` event's text.
let answer = run.stdout.trim();
try {
  const parsed = JSON.parse(run.stdout);
  const events = Array.isArray(parsed) ? parsed : [parsed];
  const result = events.findLast((e) => e && (e.type === 'result' || typeof e.response === 'string'));
  answer = result?.result ?? result?.response ?? answer;
} catch {
  // plain text: the answer as printed
}
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: String(answer) }) + '\n');
process.exitCode = run.status ?? 1;
