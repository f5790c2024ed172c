// Gemini CLI (@google/gemini-cli 0.61.0) as a tracegate --agent-cmd: agent-input/v1 on stdin,
// agent-output/v1 on stdout. The Gemini API (`:streamGenerateContent?alt=sse`, its routing side call
// `:generateContent`) to the trial's capture proxy (GOOGLE_GEMINI_BASE_URL / GEMINI_API_KEY, API-key
// auth), headless (`-p … --output-format json`), every tool approved (`--yolo`), in the trial's own
// HOME (TRACEGATE_HOME) with a settings file that turns telemetry, usage statistics, update checks
// and folder-trust prompts off. The CLI comes from $TRACEGATE_AGENTS_DIR/gemini
// (examples/agents/install.sh). GEMINI_MODEL (pass it with --agent-env) picks the model; without it
// the CLI's own default and model routing run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const agents = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const home = process.env.TRACEGATE_HOME ?? path.join(os.tmpdir(), `tracegate-gemini-${process.pid}`);
mkdirSync(path.join(home, '.gemini'), { recursive: true });
// Its error reports (gemini-client-error-*.json) go to the temp folder: the trial's, not the machine's.
const tmp = path.join(home, 'tmp');
mkdirSync(tmp, { recursive: true });
writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  ide: { enabled: false },
}));
const env = {
  ...process.env,
  // GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY (the trial's proxy and dummy key) come from tracegate.
  HOME: home,
  TMPDIR: tmp,
  GEMINI_TELEMETRY_ENABLED: 'false',
  NO_BROWSER: '1',
};
const model = process.env.GEMINI_MODEL ? ['-m', process.env.GEMINI_MODEL] : [];
const run = spawnSync(
  path.join(agents, 'gemini', 'node_modules', '.bin', 'gemini'),
  ['-p', input.prompt, '--yolo', '--output-format', 'json', ...model],
  { cwd: input.workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
);
if (run.error) throw run.error;
// `--output-format json`: one object {session_id, response, stats} on stdout; a failure's
// {session_id, error: {type, message, code}} goes to stderr (passed through) with a non-zero exit.
let answer = run.stdout.trim();
try {
  const parsed = JSON.parse(run.stdout);
  if (typeof parsed?.response === 'string') answer = parsed.response;
} catch {
  // plain text: the answer as printed
}
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: String(answer) }) + '\n');
process.exitCode = run.status ?? 1;
