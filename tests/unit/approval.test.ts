import { PassThrough } from 'node:stream';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runToolCall } from '../../harness/agent/toolCall.js';
import { DEFAULT_SETTINGS, loadPolicy, nonInteractiveApprover, TerminalApprover, type Approver } from '../../harness/index.js';
import { TraceRecorder } from '../../harness/trace/recorder.js';
import { tempDir } from '../helpers/cli.js';

function terminal(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let prompts = 0;
  output.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('approve [o]nce')) {
      prompts++;
      const answer = answers.shift();
      if (answer !== undefined) setImmediate(() => input.write(`${answer}\n`));
    }
  });
  return { approver: new TerminalApprover(input, output), prompts: () => prompts };
}

const request = (rule: string) => ({ taskId: 't', tool: 'run_shell', summary: 'rm notes.txt', rule, reason: 'deletes files' });

describe('approval', () => {
  it('asks on a terminal: once, deny, always for this rule', async () => {
    const { approver, prompts } = terminal(['o', 'd', 'a']);
    expect(await approver.ask(request('delete'))).toEqual({ approved: true, via: 'interactive' });
    expect(await approver.ask(request('delete'))).toEqual({ approved: false, via: 'interactive' });
    expect(await approver.ask(request('delete'))).toEqual({ approved: true, via: 'interactive' });
    expect(await approver.ask(request('delete'))).toEqual({ approved: true, via: 'always' });
    expect(await approver.ask(request('delete'))).toEqual({ approved: true, via: 'always' });
    expect(prompts()).toBe(3);
  });

  it('serializes concurrent questions', async () => {
    const { approver } = terminal(['o', 'd']);
    const [a, b] = await Promise.all([approver.ask(request('x')), approver.ask(request('y'))]);
    expect([a.approved, b.approved]).toEqual([true, false]);
  });

  it('denies at once when nobody can be asked', async () => {
    expect(await nonInteractiveApprover.ask(request('delete'))).toEqual({ approved: false, via: 'non_interactive' });
  });

  async function deleteWith(approver: Approver) {
    const ws = realpathSync(tempDir('tracegate-approval-'));
    writeFileSync(path.join(ws, 'notes.txt'), 'x');
    const recorder = new TraceRecorder('t', 0, { provider: 'none', mode: 'none', model: 'none', base_url: null });
    const result = await runToolCall(
      { id: 'c1', name: 'run_shell', arguments: JSON.stringify({ command: 'rm notes.txt' }) },
      {
        taskId: 't',
        step: 1,
        policy: loadPolicy(),
        approver,
        recorder,
        execute: true,
        context: { workspace: ws, outputCap: 8000, shellTimeoutMs: 5000, sandboxMode: DEFAULT_SETTINGS.sandboxMode, signal: new AbortController().signal },
      },
    );
    const span = recorder.finish(null, 'completed').spans.find((s) => s.kind === 'tool')!;
    return { result, span, exists: existsSync(path.join(ws, 'notes.txt')) };
  }

  it('records an approved call and runs it', async () => {
    const { result, span, exists } = await deleteWith(terminal(['o']).approver);
    expect(result.ok).toBe(true);
    expect(exists).toBe(false);
    expect(span.attributes).toMatchObject({ policy_decision: 'require_approval', approval_required: true, approved: true, executed: true });
  });

  it('records a refused call and does not run it', async () => {
    const { result, span, exists } = await deleteWith(nonInteractiveApprover);
    expect(result.error_type).toBe('APPROVAL_DENIED');
    expect(exists).toBe(true);
    expect(span.attributes).toMatchObject({ approval_required: true, approved: false, 'approval.via': 'non_interactive', executed: false });
  });
});
