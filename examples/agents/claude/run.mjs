// Claude Code (@anthropic-ai/claude-code 2.1.197) as a tracegate --agent-cmd: agent-input/v1 on
// stdin, agent-output/v1 on stdout. Anthropic Messages to the trial's capture proxy
// (ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY, which tracegate sets for every trial), headless
// (`-p --output-format json`), every tool approved (`--permission-mode bypassPermissions`), in the
// trial's own HOME (TRACEGATE_HOME) with a settings file that turns telemetry, error reporting,
// update checks and every other non-essential request off, and no session file kept. The CLI comes
// from $TRACEGATE_AGENTS_DIR/claude (examples/agents/install.sh).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8'));
const agents = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const home = process.env.TRACEGATE_HOME ?? path.join(os.tmpdir(), `tracegate-claude-${process.pid}`);
const quiet = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_BUG_COMMAND: '1',
};
mkdirSync(path.join(home, '.claude'), { recursive: true });
writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({
  env: quiet,
  permissions: { defaultMode: 'bypassPermissions' },
  autoUpdates: false,
}));
const env = { ...process.env, ...quiet, HOME: home };
// Claude Code refuses to bypass permissions as root unless told it runs in a sandbox; tracegate
// runs every trial in its own process group or bubblewrap pid namespace, in a throwaway workspace.
if (process.getuid?.() === 0) env.IS_SANDBOX = '1';
const model = process.env.OPENAI_MODEL ? ['--model', process.env.OPENAI_MODEL] : [];
const run = spawnSync(
  path.join(agents, 'claude', 'node_modules', '.bin', 'claude'),
  ['-p', '--output-format', 'json', '--permission-mode', 'bypassPermissions', '--no-session-persistence', ...model, input.prompt],
  { cwd: input.workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
);
if (run.error) throw run.error;
// `--output-format json`: one `{"type":"result", "result": "...", "is_error": ...}` object.
let answer = run.stdout.trim();
try {
  const result = JSON.parse(run.stdout);
  if (result && typeof result.result === 'string') answer = result.result;
  if (result?.is_error) process.stderr.write(`claude: ${result.subtype ?? 'error'}: ${answer}\n`);
} catch {
  // plain text: the answer as printed
}
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: String(answer) }) + '\n');
process.exitCode = run.status ?? 1;
