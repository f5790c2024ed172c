import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';

/** Traces written by someone else: `replay` prints them, `export` sends them on. */
function writeTrace(dir: string, name: string, trace: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(trace));
  return file;
}

describe('tracegate replay of a hostile trace', () => {
  it('shows terminal escapes, carriage returns and bidi overrides as visible \\u{…} text, never raw', async () => {
    const trace = new TraceBuilder('x\u001b]0;PWNED\u0007').llm().tool('read\u001b[2Jfile', { p: '\u001b[31mred' }).final('ok\u001b[1A\u001b[2K\rPASS \u202eevil\u202c').build();
    const result = await runCli(['replay', writeTrace(tempDir(), 'esc.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u001b\u0007\r\u202e\u202c]/);
    expect(result.stdout).toContain('task x\\u{1b}]0;PWNED\\u{7}');
    expect(result.stdout).toContain('tool read\\u{1b}[2Jfile');
    expect(result.stdout).toContain('ok\\u{1b}[1A\\u{1b}[2K\\u{d}PASS \\u{202e}evil\\u{202c}');
  });

  it('tells a trace of 100k tool spans, and clips a 5 MB final answer, saying how much is left out', async () => {
    const builder = new TraceBuilder().llm();
    for (let i = 0; i < 100_000; i++) builder.tool('list_files', { i });
    const trace = builder.final('A'.repeat(5_000_000)).build();
    trace.spans.forEach((s, i) => (s.attributes = { ...s.attributes, step: i }));
    const result = await runCli(['replay', writeTrace(tempDir(), 'big.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('step 99999\n');
    expect(result.stdout).toMatch(/final answer \(completed\): A{20000}… \(4980000 more characters\)\n$/);
  }, 120_000);

  it('an unreadable start or end time is "duration unknown", not NaN', async () => {
    const trace = { ...new TraceBuilder().llm().final('done').build(), started_at: 'yesterday', ended_at: 'Infinity' };
    const result = await runCli(['replay', writeTrace(tempDir(), 'times.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('yesterday → Infinity (duration unknown)');
  });
});
