import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toExit } from '../../src/cli/errors.js';
import { EXIT, exitCodesHelp } from '../../src/cli/exitCodes.js';
import { CliError } from '../../src/cli/errors.js';
import { TracegateError } from '../../src/schema/runError.js';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('exit codes have one owner', () => {
  it('the help line is written in one place, in the shared wording unless a command gives its own', () => {
    expect(exitCodesHelp([0, 1, 2, 3])).toBe('Exit codes: 0 gate passed, 1 gate failed, 2 bad input, 3 could not run.');
    expect(exitCodesHelp([0, 2], { 0: 'saved' })).toBe('Exit codes: 0 saved, 2 bad input.');
    const copies = sources(path.join(ROOT, 'src'))
      .filter((file) => path.relative(ROOT, file) !== path.join('src', 'cli', 'exitCodes.ts'))
      .filter((file) => /Exit codes:/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(copies).toEqual([]);
  });

  it("a CliError ends the command with the exit code it carries; other errors by their code", () => {
    expect(toExit(new CliError('no such endpoint', EXIT.COULD_NOT_RUN))).toEqual({ code: 3, message: 'no such endpoint' });
    expect(toExit(new CliError('bad flag', EXIT.BAD_INPUT))).toEqual({ code: 2, message: 'bad flag' });
    expect(toExit(new TracegateError('BAD_INPUT', 'x.jsonl:3: field id: required')).code).toBe(2);
    expect(toExit(new Error('boom')).code).toBe(3);
  });
});
