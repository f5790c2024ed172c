import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'bin/tracegate.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a real child process (npm test builds dist/ first). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid && options.onSpawn) options.onSpawn(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function tempDir(prefix = 'tracegate-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}
