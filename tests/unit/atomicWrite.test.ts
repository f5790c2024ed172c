import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeOrphanedTempFiles, StagedFolder, TEMP_FILE, tempPathFor, writeFileAtomic, writeFileAtomicSync } from '../../src/files/atomicWrite.js';
import { ROOT, tempDir } from '../helpers/cli.js';

describe('atomic writes', () => {
  it('replaces the file whole and leaves no temporary file behind', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'report.json');
    writeFileSync(file, 'old');
    writeFileAtomicSync(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    await writeFileAtomic(file, (function* () {
      for (let i = 0; i < 3; i++) yield `chunk${i};`;
    })(), { durable: true });
    expect(readFileSync(file, 'utf8')).toBe('chunk0;chunk1;chunk2;');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('a failed write keeps the old file and removes its temporary file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'report.json');
    writeFileSync(file, 'old');
    async function* failing() {
      yield 'half';
      throw new Error('disk full');
    }
    await expect(writeFileAtomic(file, failing())).rejects.toThrow('disk full');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('a writer killed with -9 mid-write never leaves the target torn', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.json');
    const body = JSON.stringify({ rows: 'x'.repeat(30_000_000) });
    writeFileSync(file, body);
    // The compiled module (npm test builds dist/ first).
    const module = path.join(ROOT, 'dist/src/files/atomicWrite.js');
    // A real child process that rewrites the file in a loop until it is killed.
    const child = spawn(process.execPath, ['-e', `
      import(${JSON.stringify(module)}).then(({ writeFileAtomicSync }) => {
        const body = JSON.stringify({ rows: 'y'.repeat(30_000_000) });
        for (;;) writeFileAtomicSync(${JSON.stringify(file)}, body);
      });`], { stdio: 'ignore' });
    for (let i = 0; i < 3000 && !readdirSync(dir).some((n) => TEMP_FILE.test(n)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(child.exitCode, 'the writer is still running').toBeNull();
    const closed = new Promise((r) => child.on('close', r));
    child.kill('SIGKILL');
    await closed;
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { rows: string };
    expect(parsed.rows.length).toBe(30_000_000);
    // The next run removes what the dead writer left.
    removeOrphanedTempFiles(dir, () => false);
    expect(readdirSync(dir)).toEqual(['big.json']);
  });

  it('names temporary files so they are hidden, beside the target, and carry the writer pid', () => {
    const temp = tempPathFor('/a/b/report.json');
    expect(path.dirname(temp)).toBe('/a/b');
    expect(path.basename(temp)).toMatch(TEMP_FILE);
    expect(path.basename(temp)).toContain(`.${process.pid}.`);
    expect(existsSync(temp)).toBe(false);
  });

  it('a staged folder replaces the old one whole on commit, and a discarded one leaves it as it was', () => {
    const dir = tempDir();
    const target = path.join(dir, 'traces');
    mkdirSync(target);
    writeFileSync(path.join(target, 'old.e0.json'), 'old');
    const discarded = new StagedFolder(target);
    discarded.write('new.e0.json', 'new');
    // Until the commit, the old traces are what a reader sees.
    expect(readdirSync(target)).toEqual(['old.e0.json']);
    discarded.discard();
    expect(readdirSync(dir)).toEqual(['traces']);
    expect(readdirSync(target)).toEqual(['old.e0.json']);
    const committed = new StagedFolder(target);
    committed.write('new.e0.json', 'new');
    committed.commit();
    expect(readdirSync(dir)).toEqual(['traces']);
    expect(readdirSync(target)).toEqual(['new.e0.json']);
    expect(readFileSync(path.join(target, 'new.e0.json'), 'utf8')).toBe('new');
  });

  it('removes a staged folder a killed writer left, and keeps a live writer\'s', () => {
    const dir = tempDir();
    const left = new StagedFolder(path.join(dir, 'traces'));
    left.write('a.e0.json', 'x');
    expect(readdirSync(dir)).toHaveLength(1);
    // This process is alive: its own staging folder stays.
    removeOrphanedTempFiles(dir, () => true);
    expect(readdirSync(dir)).toHaveLength(1);
    // Named for a pid that is gone, it goes, files and all.
    const staged = readdirSync(dir)[0]!;
    const dead = staged.replace(`.${process.pid}.`, '.999999999.');
    writeFileSync(path.join(dir, 'keep.json'), 'k');
    mkdirSync(path.join(dir, dead));
    writeFileSync(path.join(dir, dead, 'a.e0.json'), 'x');
    removeOrphanedTempFiles(dir, (pid) => pid === process.pid);
    expect(readdirSync(dir).sort()).toEqual([staged, 'keep.json'].sort());
    left.discard();
  });
});
