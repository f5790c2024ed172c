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

describe('approval cannot be stretched or spoofed', () => {
  const shellCall = async (approver: Approver, ws: string, command: string) => {
    const recorder = new TraceRecorder('t', 0, { provider: 'none', mode: 'none', model: 'none', base_url: null });
    const result = await runToolCall(
      { id: 'c1', name: 'run_shell', arguments: JSON.stringify({ command }) },
      {
        taskId: 't',
        step: 1,
        policy: loadPolicy(),
        approver,
        recorder,
        execute: true,
        context: { workspace: ws, outputCap: 8000, shellTimeoutMs: 5000, sandboxMode: 'process', signal: new AbortController().signal },
      },
    );
    return { result, span: recorder.finish(null, 'completed').spans.find((s) => s.kind === 'tool')! };
  };

  it('"always" for delete does not approve the interpreter a later command also runs', async () => {
    const ws = realpathSync(tempDir('tracegate-always-'));
    for (const f of ['a.txt', 'b.txt']) writeFileSync(path.join(ws, f), 'x');
    const { approver, prompts } = terminal(['a', 'd']);
    expect((await shellCall(approver, ws, 'rm a.txt')).result.ok).toBe(true);
    // rm asks under `delete` (approved always), python3 under `code-interpreter` (never approved).
    const mixed = await shellCall(approver, ws, `rm b.txt; python3 -c "open('ran.txt', 'w')"`);
    expect(prompts()).toBe(2);
    expect(mixed.result.error_type).toBe('APPROVAL_DENIED');
    expect(mixed.span.attributes).toMatchObject({ approval_required: true, approved: false, executed: false });
    expect(existsSync(path.join(ws, 'b.txt'))).toBe(true);
    expect(existsSync(path.join(ws, 'ran.txt'))).toBe(false);
    // Another plain delete is still covered by the standing answer.
    writeFileSync(path.join(ws, 'c.txt'), 'x');
    expect((await shellCall(approver, ws, 'rm c.txt')).span.attributes).toMatchObject({ approved: true, 'approval.via': 'always', executed: true });
    expect(prompts()).toBe(2);
  });

  it('"always" given to a command that asks under several rules covers exactly those', async () => {
    const { approver, prompts } = terminal(['a']);
    const both = { ...request('delete'), rules: ['delete', 'code-interpreter'] };
    expect(await approver.ask(both)).toEqual({ approved: true, via: 'interactive' });
    expect(await approver.ask(request('code-interpreter'))).toEqual({ approved: true, via: 'always' });
    expect(prompts()).toBe(1);
  });

  it('the prompt shows control and bidi characters as escapes, so a command cannot paint over itself', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      if (chunk.toString().includes('approve [o]nce')) setImmediate(() => input.write('d\n'));
    });
    const disguised = 'rm -rf src \u001b[2K\r\u202els -la\u2028';
    await new TerminalApprover(input, output).ask({ ...request('delete'), summary: disguised });
    expect(shown).not.toMatch(/[\u001b\r\u202e\u2028]/);
    expect(shown).toContain('rm -rf src \\u{1b}[2K\\u{d}\\u{202e}ls -la\\u{2028}');
  });
});
