import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/traceio/importError.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

describe('JSON Lines', () => {
  it('a bad line is named as file:line, not as a position in the whole file', () => {
    try {
      parseTraces(readFileSync(path.join(FIXTURES, 'otlp', 'bad-line4.jsonl')), 'bad-line4.jsonl');
      throw new Error('imported');
    } catch (error) {
      expect(error).toBeInstanceOf(ImportError);
      expect((error as ImportError).message).toMatch(/^bad-line4\.jsonl:4: not valid JSON/);
      expect((error as ImportError).problem).toBe('BAD_JSON');
    }
  });
});

describe('a broken JSON file', () => {
  it('names the line and column where the JSON breaks', () => {
    const text = '{\n  "version": 2,\n  "eval": {"task": "t"},\n  "samples": [{"id": "a\n';
    try {
      parseTraces(new TextEncoder().encode(text), 'cut.json');
      throw new Error('imported');
    } catch (error) {
      expect((error as ImportError).message).toMatch(/^cut\.json: not valid JSON at line 4, column \d+ \(/);
    }
  });
});
