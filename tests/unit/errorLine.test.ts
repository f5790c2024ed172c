import { describe, expect, it } from 'vitest';
import { ERROR_LINE_MAX_CHARS, ErrorLineScanner, errorLineOf } from '../../src/adapters/errorLine.js';

describe('the error line of an agent’s stderr', () => {
  it('Node: the head above the frames, wherever the chunks split it', () => {
    const text = ['log: step 1', 'file:///a.mjs:3', '    throw new TypeError("x")', '    ^', '', 'TypeError: Cannot read properties of undefined (reading \'tool_calls\')', '    at run (file:///a.mjs:3:11)', '    at main (file:///a.mjs:9:1)', '', 'Node.js v20.20.2', ''].join('\n');
    for (let cut = 1; cut < text.length; cut += 7) {
      const scanner = new ErrorLineScanner();
      scanner.push(text.slice(0, cut));
      scanner.push(text.slice(cut));
      expect(scanner.finish()).toBe("TypeError: Cannot read properties of undefined (reading 'tool_calls')");
    }
  });

  it('Node: a class with a bracketed code, and the last of several stacks', () => {
    expect(errorLineOf('Error [ERR_X]: first\n    at a (x.js:1:1)\nMaxTurnsExceededError: Max turns (10) exceeded\n    at b (y.js:2:2)\n')).toBe('MaxTurnsExceededError: Max turns (10) exceeded');
  });

  it('Python: the last line of the last traceback, dotted names and chained exceptions included', () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "a.py", line 1, in <module>',
      'KeyError: \'x\'',
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      '  File "b.py", line 2, in run',
      '    graph.invoke(state)',
      'langgraph.errors.GraphRecursionError: Recursion limit of 25 reached without hitting a stop condition.',
      'cleanup done',
    ].join('\n');
    expect(errorLineOf(text)).toBe('langgraph.errors.GraphRecursionError: Recursion limit of 25 reached without hitting a stop condition.');
  });

  it('no stack: the last line that reads as an error; none: null', () => {
    expect(errorLineOf('starting\nfatal: could not read the config\nbye\n')).toBe('fatal: could not read the config');
    expect(errorLineOf('starting\nall good\n')).toBeNull();
  });

  it('keeps a huge line whole up to the cap, not a partial line without end', () => {
    const line = `Error: ${'x'.repeat(ERROR_LINE_MAX_CHARS * 3)}`;
    const scanner = new ErrorLineScanner();
    for (let i = 0; i < line.length; i += 1000) scanner.push(line.slice(i, i + 1000));
    scanner.push('\n    at a (x.js:1:1)\n');
    expect(scanner.finish()).toBe(line.slice(0, ERROR_LINE_MAX_CHARS));
  });
});
