/**
 * The operating system's accounting of a measured child: GNU time (`/usr/bin/time`, Debian package
 * `time`) waits for the command and prints the rusage the kernel kept for it — peak RSS of the whole
 * process (every thread, the report writer's included; and the largest of the descendants it waited
 * for) and its CPU time. A hook inside the measured process would be run by each worker thread too
 * and could report before the process's last phase, so the benchmarks measure from outside.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GNU_TIME = '/usr/bin/time';

export interface ProcessUsage {
  code: number | null;
  wall_s: number;
  cpu_ms: number;
  max_rss_mb: number;
  stderr: string;
}

let measured = 0;

/** Runs `command args` under GNU time, timing it from spawn to exit. */
export function runMeasured(command: string, args: string[], options: Pick<SpawnOptions, 'cwd' | 'env'> = {}): Promise<ProcessUsage> {
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} not found: the benchmarks read peak RSS and CPU from GNU time (apt-get install time)`);
  const report = path.join(tmpdir(), `tracegate-bench-usage-${process.pid}-${++measured}.txt`);
  const started = performance.now();
  const child = spawn(GNU_TIME, ['-f', '%M %U %S', '-o', report, command, ...args], { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const wall_s = (performance.now() - started) / 1000;
      try {
        // GNU time writes "Command exited with non-zero status N" before the figures when the command failed.
        const figures = readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
        const [maxRssKb, userS, systemS] = figures as [number, number, number];
        resolve({ code, wall_s, cpu_ms: (userS + systemS) * 1000, max_rss_mb: maxRssKb / 1024, stderr });
      } catch (error) {
        reject(new Error(`GNU time left no figures for ${command}: ${(error as Error).message}; stderr: ${stderr.slice(-1000)}`));
      } finally {
        rmSync(report, { force: true });
      }
    });
  });
}

/** The median of the figures and their spread (lowest–highest), as "1.23 (1.20–1.31)". */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function spread(values: number[], digits = 2): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
}
