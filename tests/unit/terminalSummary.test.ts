import { describe, expect, it } from 'vitest';
import { summaryMarkdown } from '../../src/reporters/summaryMarkdown.js';
import { formatTerminal } from '../../src/reporters/terminal.js';
import type { RunReport } from '../../src/schema/report.js';
import { makeReport } from '../helpers/reportBuilder.js';

/** The cells of a cli-table3 table row by row (borders and padding dropped), wrapped lines joined back. */
function cells(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('│'))
    .map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));
}

describe('the terminal summary keeps its units apart', () => {
  it('under --epochs 3: tasks and trials in their own columns; duration is wall time, the summed trial time labelled so', () => {
    // 2 tasks × 3 trials of 100 ms each, in a run whose wall time is 60 s (makeReport).
    const report = makeReport([{ id: 'a', trials: 'ppf' }, { id: 'b', trials: 'ppe' }]);
    const [head, row] = cells(formatTerminal(report));
    expect(Object.fromEntries(head!.map((h, i) => [h, row![i]]))).toEqual({
      tasks: '2',
      trials: '6',
      'trials passed': '4',
      'trials failed': '1',
      'trials errored': '1',
      'pass rate': '80.0%',
      'steps (mean)': '2.0',
      tokens: '90',
      'wall time': '60.0s',
      'trial time (sum)': '0.6s',
    });
    expect(summaryMarkdown(report)).toContain('| tasks | trials | trials passed | trials failed | trials errored | pass rate | steps (mean) | tokens | wall time | trial time (sum) |\n| ---: |');
  });

  it('one trial a task: one count per status', () => {
    const [head] = cells(formatTerminal(makeReport([{ id: 'a', trials: 'p' }, { id: 'b', trials: 'f' }])));
    expect(head).toEqual(['tasks', 'passed', 'failed', 'errored', 'pass rate', 'steps (mean)', 'tokens', 'wall time', 'trial time (sum)']);
  });

  it('an error in the failing-tasks table is whole, wrapped, its actionable end kept (no cut at 70 characters)', () => {
    const report: RunReport = makeReport([{ id: 'wants_model', trials: 'e' }]);
    const message = 'pass --base-url URL (or OPENAI_BASE_URL) for a live endpoint, or --cassettes DIR to replay: the agent called a model, but this run has none (task wants_model, step 1); see http://127.0.0.1:4000/a/very/long/path/that/is/longer/than/the/evidence/column/itself';
    report.tasks[0] = { ...report.tasks[0]!, error: { code: 'NO_MODEL', message } };
    const rows = cells(formatTerminal(report));
    const at = rows.findIndex((r) => r[0] === 'wants_model');
    // Wrapped: the continuation lines have an empty task cell until the next row's border.
    const evidence = rows.slice(at).filter((r, i) => i === 0 || r[0] === '').map((r) => r[4]).join(' ');
    expect(evidence.replace(/\s+/g, '')).toBe(message.replace(/\s+/g, ''));
    expect(evidence).toContain('or --cassettes DIR to replay');
    expect(evidence).not.toContain('…');
  });
});
