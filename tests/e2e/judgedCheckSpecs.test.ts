import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/** A suite with one bad spec a line; validate must name each file, line and field and exit 2. */
async function validateLines(lines: object[]) {
  const dir = tempDir();
  const file = path.join(dir, 'judged.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return runCli(['validate', file]);
}

const task = (id: string, check: object) => ({ id, prompt: 'p', checks: [check] });

describe('validate refuses bad trajectory, answer and budget specs with file, line and field', () => {
  it('trajectory specs', async () => {
    const r = await validateLines([
      task('ok', { type: 'tool_sequence', tools: ['read_file', 'write_file'], mode: 'subsequence' }),
      task('mode', { type: 'tool_sequence', tools: ['read_file'], mode: 'sometimes' }),
      task('lookahead', { type: 'tool_args', tool: 'read_file', fields: { path: { pattern: '(?=README)' } } }),
      task('nothing', { type: 'tool_args', tool: 'read_file' }),
      task('range', { type: 'tool_count', tool: 'read_file', min: 3, max: 1 }),
      task('schema', { type: 'tool_args', tool: 'read_file', schema: { type: 'nope' } }),
      task('errtype', { type: 'no_tool_errors', except: ['NOT_A_TYPE'] }),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/judged\.jsonl:1:/);
    expect(r.stderr).toMatch(/judged\.jsonl:2: field checks\.0\.mode:/);
    expect(r.stderr).toMatch(/judged\.jsonl:3: field checks\.0\.fields\.path\.pattern: not a usable regular expression/);
    expect(r.stderr).toMatch(/judged\.jsonl:4: field checks\.0\.match: give match, fields or schema/);
    expect(r.stderr).toMatch(/judged\.jsonl:5: field checks\.0\.min: min is more than max/);
    expect(r.stderr).toMatch(/judged\.jsonl:6: field checks\.0\.schema: not a usable JSON Schema/);
    expect(r.stderr).toMatch(/judged\.jsonl:7: field checks\.0\.except\.0:/);
  });

  it('answer specs', async () => {
    const r = await validateLines([
      task('ok', { type: 'answer_matches', pattern: '^\\d+$', flags: 'm' }),
      task('backref', { type: 'answer_matches', pattern: '(a)\\1' }),
      task('flags', { type: 'answer_matches', pattern: 'a', flags: 'gx' }),
      task('number', { type: 'answer_number', value: '42' }),
      task('json', { type: 'answer_json', schema: { type: 'object', required: 'port' } }),
      task('exit', { type: 'exit_reason', equals: 'finished' }),
      task('equals', { type: 'answer_equals', value: 'x', mode: 'fuzzy' }),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/judged\.jsonl:1:/);
    expect(r.stderr).toMatch(/judged\.jsonl:2: field checks\.0\.pattern: not a usable regular expression/);
    expect(r.stderr).toMatch(/judged\.jsonl:3: field checks\.0\.flags: flags are letters of "ims"/);
    expect(r.stderr).toMatch(/judged\.jsonl:4: field checks\.0\.value:/);
    expect(r.stderr).toMatch(/judged\.jsonl:5: field checks\.0\.schema: not a usable JSON Schema/);
    expect(r.stderr).toMatch(/judged\.jsonl:6: field checks\.0\.equals:/);
    expect(r.stderr).toMatch(/judged\.jsonl:7: field checks\.0\.mode:/);
  });

  it('budget specs', async () => {
    const r = await validateLines([
      task('ok', { type: 'budget', max_cost_usd: 0.05, max_tool_calls: 10 }),
      task('empty', { type: 'budget' }),
      task('negative', { type: 'budget', max_cost_usd: -1 }),
      task('unknown', { type: 'budget', max_dollars: 1 }),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/judged\.jsonl:1:/);
    expect(r.stderr).toMatch(/judged\.jsonl:2: field checks\.0\.type: give at least one of max_tokens/);
    expect(r.stderr).toMatch(/judged\.jsonl:3: field checks\.0\.max_cost_usd:/);
    expect(r.stderr).toMatch(/judged\.jsonl:4: field checks\.0\.max_dollars: unknown field/);
  });
});
