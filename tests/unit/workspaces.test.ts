import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanOrphanedWorkspaces, createRunDir, isAlive } from '../../src/orchestrator/workspaces.js';
import { tempDir } from '../helpers/cli.js';

describe('temporary workspaces', () => {
  it('removes the run folders of dead processes and keeps those of live ones', async () => {
    const root = tempDir();
    // A real process that has exited: its pid is dead.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    expect(isAlive(Number(dead))).toBe(false);
    const orphan = path.join(root, `tracegate-run-${dead}-abc123`);
    mkdirSync(path.join(orphan, 'task-x'), { recursive: true });
    writeFileSync(path.join(orphan, 'task-x', 'file.txt'), 'left by kill -9');
    const live = path.join(root, `tracegate-run-${process.ppid}-def456`);
    mkdirSync(live);
    const mine = await createRunDir(root);
    const unrelated = path.join(root, 'tracegate-test-xyz');
    mkdirSync(unrelated);

    expect(await cleanOrphanedWorkspaces(root)).toEqual([orphan]);
    expect(existsSync(orphan)).toBe(false);
    for (const kept of [live, mine, unrelated]) expect(existsSync(kept)).toBe(true);
  });
});
