import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../harness/index.js';
import { AdapterConfigError } from '../../src/adapters/harnessAdapter.js';
import { toExit } from '../../src/cli/errors.js';
import { EXIT } from '../../src/cli/exitCodes.js';
import { CliError } from '../../src/cli/errors.js';
import { ProviderFaultError } from '../../src/provider/index.js';
import { JsonFileError } from '../../src/files/jsonFile.js';
import { asRunError, RUN_ERROR_CODES, TracegateError } from '../../src/schema/runError.js';
import { SuiteError } from '../../src/suite/loadSuite.js';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('run errors: one base class, one enum of codes, one exit-code mapping', () => {
  const cases: Array<[string, TracegateError, number]> = [
    ['suite', new SuiteError([{ file: 's.jsonl', line: 3, field: 'prompt', message: 'required' }]), EXIT.BAD_INPUT],
    ['json file', new JsonFileError('gate.json: field x: unknown field'), EXIT.BAD_INPUT],
    ['adapter config', new AdapterConfigError('--record needs a live provider'), EXIT.BAD_INPUT],
    ['cassette invalid', new ModelError('CASSETTE_INVALID', 'broken cassette'), EXIT.BAD_INPUT],
    ['provider', new ModelError('PROVIDER_ERROR', 'down'), EXIT.COULD_NOT_RUN],
    ['provider fault', new ProviderFaultError('http://x/v1', [{ fault: 'rate_limited', status: 429, detail: 'slow down' }], 'and the time budget ran out'), EXIT.COULD_NOT_RUN],
    ['cli usage', new CliError('--grep: bad', EXIT.BAD_INPUT), EXIT.BAD_INPUT],
  ];

  it.each(cases)('%s: a TracegateError whose code is in the enum and decides the exit code', (_name, error, exit) => {
    expect(error).toBeInstanceOf(TracegateError);
    expect(RUN_ERROR_CODES).toContain(error.code);
    expect(error.name).toBe(error.constructor.name);
    expect(toExit(error).code).toBe(exit);
    expect(toExit(error).message).toContain(error.message);
  });

  it('anything else is exit 3, with what went wrong', () => {
    expect(toExit(new TypeError('boom'))).toMatchObject({ code: EXIT.COULD_NOT_RUN, message: expect.stringContaining('boom') });
  });

  it('a provider fault names the fault, the last status and the retries', () => {
    const error = new ProviderFaultError('http://x/v1/chat/completions', [
      { fault: 'timeout', status: null, detail: 'no complete response within 500 ms' },
      { fault: 'rate_limited', status: 429, detail: 'slow down' },
      { fault: 'rate_limited', status: 429, detail: 'slow down' },
    ], 'and the time budget ran out');
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', fault: 'rate_limited', status: 429, retries: 2 });
    expect(error.message).toBe('http://x/v1/chat/completions: rate_limited (HTTP 429: slow down) and the time budget ran out; 2 retries (1×timeout, 2×rate_limited)');
  });

  it("an external agent's own error code is kept, in the message of an AGENT_ERROR", () => {
    expect(asRunError({ code: 'PROVIDER_ERROR', message: 'm' })).toEqual({ code: 'PROVIDER_ERROR', message: 'm' });
    expect(asRunError({ code: 'OOM_KILLED', message: 'out of memory' })).toEqual({ code: 'AGENT_ERROR', message: 'OOM_KILLED: out of memory' });
  });

  it('no error class outside the base extends Error directly', () => {
    const offenders = [...sources(path.join(ROOT, 'src')), ...sources(path.join(ROOT, 'harness'))]
      .filter((file) => !file.endsWith(path.join('schema', 'runError.ts')))
      .filter((file) => /class \w+ extends Error\b/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
