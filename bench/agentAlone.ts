/**
 * The floor the command-adapter benchmarks compare against: the same agent spawned as the adapter
 * spawns it (allow-listed environment, its own process group), `runs` times at `concurrency`, with
 * no tracegate around it.
 */
import { spawn } from 'node:child_process';
import { ENV_ALLOW_LIST } from '../src/adapters/trialEnvironment.js';

function runAgentOnce(agent: string, vars: Record<string, string>, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { ...vars };
    for (const name of ENV_ALLOW_LIST) if (process.env[name] !== undefined) env[name] = process.env[name]!;
    const child = spawn('python3', [agent], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.stdin.end(JSON.stringify({ schema_version: 'agent-input/v1', task_id: 't', prompt: 'hi', epoch: 0, max_steps: 1 }));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`agent exited ${code}`))));
  });
}

/** Seconds for `runs` runs of the agent alone, `concurrency` at a time. */
export async function timeAgentAlone(agent: string, vars: Record<string, string>, cwd: string, runs: number, concurrency: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        next++;
        await runAgentOnce(agent, vars, cwd);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}
