import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { attr } from '../../../src/schema/traceVocabulary.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

const FILE = 'swe-agent-demos-in-history.traj';
const raw = () => JSON.parse(readFileSync(path.join(FIXTURES, FILE), 'utf8')) as { history: Array<Record<string, unknown>> };
const imported = (traj: unknown) => parseTraces(strToU8(JSON.stringify(traj)), FILE);

describe('SWE-agent trajectories', () => {
  it('demonstrations in history are skipped: each step gets its own call (name, arguments, id); the model from replay_config', () => {
    const [t] = imported(raw()).traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => c.name)).toEqual(['find_file', 'open', 'edit', 'bash', 'submit']);
    expect(calls[0]!.arguments).toBe('{"file_name":"missing_colon.py"}');
    expect(attr(toolSpans(t!)[0]!, 'toolCallId')).toBe('call_fJuazlMUN5fQDQ73G6XSpYpx');
    expect(t!.model.model).toBe('gpt-4o');
    expect(llmSpans(t!)).toHaveLength(5);
  });

  it('a step with no history message of its own does not shift the later steps onto the wrong messages', () => {
    const traj = raw();
    // Drop the run's (not a demo's) assistant message for the `edit` step.
    const i = traj.history.findIndex((m) => m['role'] === 'assistant' && !m['is_demo'] && String(m['action']).startsWith('edit'));
    traj.history.splice(i, 1);
    const [t] = imported(traj).traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => c.name)).toEqual(['find_file', 'open', 'edit', 'bash', 'submit']);
    expect(calls[2]!.arguments).toMatch(/^\{"command":"edit /); // from the step's action: no message to read
    expect(calls[3]!.arguments).toBe('{"command":"python3 /SWE-agent__test-repo/tests/missing_colon.py"}');
  });
});

describe('SWE-agent history-only trajectories', () => {
  it('a file with `history` and no `trajectory` imports: each non-demo assistant action is a step, the message after it its observation', () => {
    const whole = raw() as Record<string, unknown> & { history: Array<Record<string, unknown>> };
    const { trajectory: _, ...historyOnly } = whole;
    const [t] = imported(historyOnly).traces;
    const actions = whole.history.filter((m) => m['role'] === 'assistant' && m['is_demo'] !== true && typeof m['action'] === 'string').map((m) => m['action']);
    expect(toolSpans(t!).map((s) => attr(s, 'toolArguments') !== null)).toHaveLength(actions.filter((a) => String(a).trim() !== '').length);
    expect(toolSpans(t!).map((s) => s.attributes['swe_agent.action'])).toEqual(actions.filter((a) => String(a).trim() !== ''));
  });
});
