import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunReportSchema, type RunReport } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';

/**
 * The seeds' lessons, through real harness runs: each task's cassette scripts the model, the harness
 * really validates, refuses, executes and compresses, and the report judges the trace.
 */
type Reply = { tool: string; args: Record<string, unknown> } | { answer: string };

const FACT = 'KESTREL-7731';
// Long enough to be compressed; the fact sits in the middle, outside the summary's head, structure and tail.
const BIG = Array.from({ length: 60 }, (_, i) => (i === 30 ? `the warehouse code is ${FACT}` : `line ${i}: stock entry with a plain filler description`)).join('\n');

function cassette(taskId: string, replies: Reply[]) {
  return {
    schema_version: 'cassette/v1',
    kind: 'script',
    task_id: taskId,
    model: 'seed-lessons-script',
    note: 'hand-written script for a test',
    interactions: replies.map((r) => ({
      response: 'answer' in r ? { content: r.answer, tool_calls: [] } : { content: null, tool_calls: [{ name: r.tool, arguments: r.args }] },
    })),
  };
}

const readAll: Reply[] = [
  { tool: 'read_file', args: { path: 'big.txt' } },
  { tool: 'read_file', args: { path: 'a.txt' } },
  { tool: 'read_file', args: { path: 'b.txt' } },
];

const TASKS: Array<{ task: Record<string, unknown>; replies: Reply[] }> = [
  {
    task: { id: 'read_file_int_path_001', prompt: 'Call read_file with the integer 123 as its path and report the error.', expected_error_types: ['INVALID_ARGUMENTS'], max_steps: 3 },
    replies: [{ tool: 'read_file', args: { path: '123' } }, { answer: 'The file 123 does not exist.' }],
  },
  {
    task: { id: 'read_file_int_path_002', prompt: 'Call read_file with the integer 123 as its path and report the error.', expected_error_types: ['INVALID_ARGUMENTS'], max_steps: 3 },
    replies: [{ tool: 'read_file', args: { path: 123 } }, { answer: 'read_file rejected the integer path.' }],
  },
  {
    task: { id: 'rm_refused_seed_001', prompt: 'Delete the build folder.', expected_error_types: ['PERMISSION_DENIED'], max_steps: 3 },
    replies: [{ tool: 'run_shell', args: { command: 'rm -rf build' } }, { answer: 'The policy refused rm -rf build; I left it alone.' }],
  },
  {
    task: { id: 'rm_refused_event_001', prompt: 'Delete the build folder.', expected_event_type: 'permission_denied', max_steps: 3 },
    replies: [{ tool: 'run_shell', args: { command: 'rm -rf build' } }, { answer: 'The policy refused rm -rf build; I left it alone.' }],
  },
  {
    task: { id: 'compressed_ok_001', prompt: 'Read big.txt, a.txt and b.txt and name the first word of a.txt.', expected_event_type: 'context_compressed', expected_contains: ['alpha'], max_steps: 6 },
    replies: [...readAll, { answer: 'a.txt starts with alpha.' }],
  },
  {
    task: { id: 'context_lost_001', prompt: 'Read big.txt, a.txt and b.txt and give the warehouse code.', expected_contains: [FACT], max_steps: 6 },
    replies: [...readAll, { answer: 'I could not find a warehouse code.' }],
  },
  {
    task: { id: 'compressed_wrong_answer_001', prompt: 'Read big.txt, a.txt and b.txt and name the animal.', expected_contains: ['zebra'], max_steps: 6 },
    replies: [...readAll, { answer: 'There is no animal in them.' }],
  },
];

let report: RunReport;
const outcome = (id: string) => report.tasks.find((t) => t.id === id)!;

beforeAll(async () => {
  const dir = tempDir();
  const ws = path.join(dir, 'ws');
  mkdirSync(path.join(ws, 'build'), { recursive: true });
  writeFileSync(path.join(ws, 'big.txt'), BIG);
  writeFileSync(path.join(ws, 'a.txt'), 'alpha is the first word here\n');
  writeFileSync(path.join(ws, 'b.txt'), 'beta is the first word there\n');
  mkdirSync(path.join(dir, 'tapes'));
  for (const { task, replies } of TASKS) writeFileSync(path.join(dir, 'tapes', `${String(task.id)}.json`), JSON.stringify(cassette(String(task.id), replies)));
  const suite = [{ suite: { cassettes: 'tapes' } }, ...TASKS.map(({ task }) => ({ ...task, workspace: 'ws' }))];
  writeFileSync(path.join(dir, 'suite.jsonl'), suite.map((l) => JSON.stringify(l)).join('\n') + '\n');
  // A threshold low enough that three file reads overflow it.
  writeFileSync(path.join(dir, 'small-context.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'small-context', compression_threshold: 1500 }));
  const out = path.join(dir, 'out');
  const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--variant', path.join(dir, 'small-context.json'), '--out', out, '--no-html']);
  expect(result.code, result.stderr).toBe(1);
  report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
}, 120_000);

describe('the classifier on the seeds’ lessons, through real harness runs', () => {
  it('read_file {"path": "123"} where the task expects INVALID_ARGUMENTS is a tool-argument failure, not a missing file', () => {
    expect(outcome('read_file_int_path_001')).toMatchObject({ status: 'failed', failure_reason: 'TOOL_ARGUMENT_ERROR', failure_layer: 'tool' });
    expect(outcome('read_file_int_path_001').evidence[0]!.detail).toMatch(/read_file\(\{"path":"123"\}\): FILE_NOT_FOUND, where the task expects INVALID_ARGUMENTS/);
    // The integer the task asked for is rejected by the tool's schema: the check is met.
    expect(outcome('read_file_int_path_002').status).toBe('passed');
  });

  it('a correctly refused rm -rf meets the seeds’ PERMISSION_DENIED (the refusal is typed COMMAND_BLOCKED) and is not blamed on the environment', () => {
    for (const id of ['rm_refused_seed_001', 'rm_refused_event_001']) {
      expect(outcome(id).status, JSON.stringify(outcome(id).checks)).toBe('passed');
      expect(outcome(id).failure_layer).toBeNull();
    }
  });

  it('expected_event_type "context_compressed" is met by a real compression, which alone is no CONTEXT_LOSS', () => {
    expect(outcome('compressed_ok_001').status, JSON.stringify(outcome('compressed_ok_001').checks)).toBe('passed');
    expect(outcome('compressed_wrong_answer_001')).toMatchObject({ status: 'failed', failure_reason: 'FINAL_ANSWER_INCOMPLETE', failure_layer: 'model' });
  });

  it('CONTEXT_LOSS names the compression that summarized the result holding the fact the answer lacks', () => {
    const lost = outcome('context_lost_001');
    expect(lost).toMatchObject({ status: 'failed', failure_reason: 'CONTEXT_LOSS', failure_layer: 'harness' });
    expect(lost.evidence[0]!.detail).toMatch(new RegExp(`compression summarized the result of read_file\\(\\{"path":"big.txt"\\}\\).*held "${FACT}"; the answer lacks it`));
  });
});
