import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { traceStory } from '../../../src/reporters/traceStory.js';
import { toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { attr } from '../../../src/schema/traceVocabulary.js';
import { importRow } from '../../../src/traceio/importSummary.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { SAMPLES } from '../../helpers/samples.js';

const sample = (name: string) => parseTraces(readFileSync(path.join(SAMPLES, name)), name);

describe('the upstream sample traces', () => {
  it('are all covered by this test', () => {
    const files = readdirSync(SAMPLES).filter((f) => f !== 'README.md').sort();
    expect(files).toEqual([
      'inspect__log_message_deduplication.eval',
      'inspect__log_tool_call_error.json',
      'mini-swe-agent__local.traj.json',
      'otlp__opentelemetry-proto__trace.json',
      'swe-agent__6e44b9__sweagenttestrepo-1c2844.traj',
    ]);
  });

  it('Inspect .eval: one sample (samples/0_epoch_1.json), 6 model events, 5 bash tool events, no errors, output "done"', () => {
    const imported = sample('inspect__log_message_deduplication.eval');
    expect(imported.format).toBe('inspect-eval');
    expect(importRow(imported)).toMatchObject({ traces: 1, model_calls: 6, tool_calls: 5, errors: 0, final_answers: 1 });
    const [trace] = imported.traces;
    // sample id "0", epoch 1 (Inspect counts from 1) → tracegate epoch 0
    expect(trace).toMatchObject({ task_id: '0', epoch: 0, final_answer: { text: 'done', exit_reason: 'completed' } });
    expect(trace!.model).toMatchObject({ mode: 'imported', model: 'hardcoded/hardcoded' });
    const tools = toolSpans(trace!);
    expect(tools.map((s) => toolAttr(s).name)).toEqual(['bash', 'bash', 'bash', 'bash', 'bash']);
    expect(toolAttr(tools[0]!).arguments).toBe('{"cmd":"ls"}');
    expect(attr(tools[0]!, 'toolCallId')).toBe('hardcoded_0');
    expect(toolAttr(tools[0]!).result).toContain('bin\nboot');
    expect(trace!.started_at).toBe('2025-10-06T10:15:43.620Z');
  });

  it('Inspect .json: one sample (id 1, epoch 4) whose 11 tool messages each carry a ToolCallError, no model messages, no output', () => {
    const imported = sample('inspect__log_tool_call_error.json');
    expect(imported.format).toBe('inspect-json');
    // 11 tool messages; 10 failed calls, and the output_limit one a result that arrived truncated
    // (OUTPUT_TRUNCATED is a flag on a result in tracegate, not a failure).
    expect(importRow(imported)).toMatchObject({ traces: 1, model_calls: 0, tool_calls: 11, errors: 10, final_answers: 0 });
    const [trace] = imported.traces;
    expect(trace).toMatchObject({ task_id: '1', epoch: 3, final_answer: { text: null, exit_reason: 'unknown' } });
    const types = toolSpans(trace!).map((s) => [s.attributes['error.type'], toolAttr(s).errorType]);
    expect(types).toEqual([
      ['parsing', 'INVALID_ARGUMENTS'],
      ['timeout', 'COMMAND_TIMEOUT'],
      ['parsing', 'INVALID_ARGUMENTS'],
      ['unicode_decode', 'COMMAND_FAILED'],
      ['permission', 'PERMISSION_DENIED'],
      ['file_not_found', 'FILE_NOT_FOUND'],
      ['is_a_directory', 'INVALID_ARGUMENTS'],
      ['limit', 'LIMIT_EXCEEDED'],
      ['approval', 'APPROVAL_DENIED'],
      ['unknown', 'COMMAND_FAILED'],
      ['output_limit', 'OUTPUT_TRUNCATED'],
    ]);
    const truncated = toolSpans(trace!).at(-1)!;
    expect(toolAttr(truncated)).toMatchObject({ ok: true, truncated: true, errorType: 'OUTPUT_TRUNCATED' });
    expect(importRow(imported).unknown).toEqual(expect.arrayContaining(['final answer', 'exit reason', 'model calls', 'timing']));
    // Without events the eval's own start time stands in (stats.started_at).
    expect(trace!.started_at).toBe('2025-02-07T00:00:00.000Z');
    const story = traceStory(trace!);
    expect(story).toMatch(/imported from inspect; the source cannot tell: timing, model calls, final answer, exit reason/);
    expect(story).toMatch(/PERMISSION_DENIED/);
  });

  it('mini-swe-agent (old bare list): 2 assistant messages, each one bash block, the second submits', () => {
    const imported = sample('mini-swe-agent__local.traj.json');
    expect(imported.format).toBe('mini-swe-agent');
    // messages: system, user, assistant (echo hello world), user (returncode 0), assistant (submit), user ('')
    expect(importRow(imported)).toMatchObject({ traces: 1, model_calls: 2, tool_calls: 2, errors: 0, final_answers: 1 });
    const [trace] = imported.traces;
    expect(trace!.task_id).toBe('mini-swe-agent__local');
    expect(JSON.parse(toolAttr(toolSpans(trace!)[0]!).arguments)).toEqual({ command: "echo 'hello world'" });
    expect(toolSpans(trace!)[0]!.attributes['exit_code']).toBe(0);
    expect(trace!.final_answer).toEqual({ text: '', exit_reason: 'completed' });
  });

  it('OTLP trace.json: one server span with no GenAI attributes: one trace, nothing to judge, and it says so', () => {
    const imported = sample('otlp__opentelemetry-proto__trace.json');
    expect(imported.format).toBe('otlp-json');
    expect(importRow(imported)).toMatchObject({ traces: 1, model_calls: 0, tool_calls: 0, errors: 0, final_answers: 0 });
    const [trace] = imported.traces;
    expect(trace!.trace_id).toBe('5b8efff798038103d269b633813fc60c');
    expect(trace!.started_at).toBe('2018-12-13T14:51:00.000Z');
    expect(importRow(imported).unknown).toContain('1 span of no GenAI/OpenInference kind skipped');
    expect(trace!.final_answer.exit_reason).toBe('unknown');
  });

  it('SWE-agent .traj: 5 trajectory steps (find_file, open, edit, bash, submit), exit_status submitted, the patch as the answer', () => {
    const imported = sample('swe-agent__6e44b9__sweagenttestrepo-1c2844.traj');
    expect(imported.format).toBe('swe-agent');
    expect(importRow(imported)).toMatchObject({ traces: 1, model_calls: 5, tool_calls: 5, errors: 0, final_answers: 1 });
    const [trace] = imported.traces;
    expect(toolSpans(trace!).map((s) => toolAttr(s).name)).toEqual(['find_file', 'open', 'edit', 'bash', 'submit']);
    expect(trace!.final_answer.exit_reason).toBe('completed');
    expect(trace!.final_answer.text).toContain('diff --git a/tests/missing_colon.py');
    // info.model_stats: tokens_sent 7141, tokens_received 243
    expect(trace!.usage).toEqual({ input_tokens: 7141, output_tokens: 243, total_tokens: 7384 });
  });
});
