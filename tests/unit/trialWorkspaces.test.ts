import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrialWorkspaces } from '../../src/orchestrator/trialWorkspaces.js';
import { tempDir } from '../helpers/cli.js';
import { makeTask } from '../helpers/traceBuilder.js';

describe('trial workspaces', () => {
  it('gives each trial its own real, empty folder under one run root, and removes all of it', async () => {
    const workspaces = new TrialWorkspaces();
    const task = makeTask({ id: 'no_fixture', workspace: null });
    const a = await workspaces.create(task);
    const b = await workspaces.create(task);
    expect(a).not.toBe(b);
    expect(path.dirname(a)).toBe(path.dirname(b));
    expect(realpathSync(a)).toBe(a);
    expect(readdirSync(a)).toEqual([]);

    writeFileSync(path.join(b, 'written-by-agent.txt'), 'x');
    mkdirSync(path.join(b, 'nested'));
    writeFileSync(path.join(b, 'nested', 'deep.txt'), 'y');
    await workspaces.remove(a);
    await workspaces.remove(b);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);

    const left = await workspaces.create(task);
    writeFileSync(path.join(left, 'left-by-a-timed-out-trial.txt'), 'z');
    await workspaces.dispose();
    expect(existsSync(path.dirname(left))).toBe(false);
  });

  it("copies the task's fixture into the trial's folder and never touches the original", async () => {
    const fixture = tempDir();
    writeFileSync(path.join(fixture, 'README.md'), 'original');
    const workspaces = new TrialWorkspaces();
    const dir = await workspaces.create(makeTask({ id: 'with_fixture', workspace: fixture }));
    expect(readdirSync(dir)).toEqual(['README.md']);
    await workspaces.remove(dir);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(fixture)).toEqual(['README.md']);
    await workspaces.dispose();
  });
});
