import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeOrphanedTempFiles, TEMP_FILE, tempPathFor, writeFileAtomic, writeFileAtomicSync } from '../../src/files/atomicWrite.js';
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
});
