import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrialWorkspaces } from '../../src/orchestrator/trialWorkspaces.js';
import { tempDir } from '../helpers/cli.js';
import { makeTask } from '../helpers/traceBuilder.js';

const bare = makeTask({ id: 'no_fixture', workspace: null });

describe('trial workspaces', () => {
  it('gives each trial in flight its own real, empty folder under one run root, and removes all of it', async () => {
    const workspaces = new TrialWorkspaces();
    const a = await workspaces.create(bare);
    const b = await workspaces.create(bare);
    expect(a).not.toBe(b);
    expect(path.dirname(a)).toBe(path.dirname(b));
    expect(realpathSync(a)).toBe(a);
    expect(readdirSync(a)).toEqual([]);

    writeFileSync(path.join(b, 'written-by-agent.txt'), 'x');
    mkdirSync(path.join(b, 'nested'));
    writeFileSync(path.join(b, 'nested', 'deep.txt'), 'y');
    await workspaces.release(b, true);
    expect(existsSync(b)).toBe(false);

    const left = await workspaces.create(bare);
    writeFileSync(path.join(left, 'left-by-a-timed-out-trial.txt'), 'z');
    await workspaces.dispose();
    expect(existsSync(path.dirname(left))).toBe(false);
  });

  it('hands a folder that a finished trial left untouched to the next trial, and no other', async () => {
    const workspaces = new TrialWorkspaces();
    const clean = await workspaces.create(bare);
    writeFileSync(path.join(clean, 'temp.txt'), 'written, then deleted by the agent');
    rmSync(path.join(clean, 'temp.txt'));
    await workspaces.release(clean, true);
    expect(await workspaces.create(bare)).toBe(clean);
    expect(readdirSync(clean)).toEqual([]);

    // Not after a timeout or crash (something may still run there), nor when its mode changed.
    await workspaces.release(clean, false);
    expect(existsSync(clean)).toBe(false);
    const chmodded = await workspaces.create(bare);
    chmodSync(chmodded, 0o755);
    await workspaces.release(chmodded, true);
    expect(existsSync(chmodded)).toBe(false);
    const next = await workspaces.create(bare);
    expect([clean, chmodded]).not.toContain(next);
    await workspaces.dispose();
  });

  it("copies the task's fixture into the trial's folder and never touches the original", async () => {
    const fixture = tempDir();
    writeFileSync(path.join(fixture, 'README.md'), 'original');
    const workspaces = new TrialWorkspaces();
    const reused = await workspaces.create(bare);
    await workspaces.release(reused, true);
    const dir = await workspaces.create(makeTask({ id: 'with_fixture', workspace: fixture }));
    expect(readdirSync(dir)).toEqual(['README.md']);
    writeFileSync(path.join(dir, 'README.md'), 'changed by the agent');
    await workspaces.release(dir, true);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(fixture)).toEqual(['README.md']);
    await workspaces.dispose();
  });
});
