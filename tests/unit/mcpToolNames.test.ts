import { describe, expect, it } from 'vitest';
import { harnessName } from '../../harness/mcp/mcpToolset.js';
import { withoutPatterns } from '../../harness/mcp/withoutPatterns.js';

describe('MCP tool names and schemas from untrusted servers', () => {
  it('keeps a safe name as it is and gives a changed one a hash of the original', () => {
    expect(harnessName('h', 'lookup_ticket')).toBe('h__lookup_ticket');
    const spaced = harnessName('h', 'a b');
    expect(spaced).toMatch(/^h__a_b_[0-9a-f]{8}$/);
    expect(spaced).not.toBe(harnessName('h', 'a_b'));
    expect(harnessName('h', 'a\nb')).not.toBe(spaced);
    const long = [harnessName('h', 'x'.repeat(70) + '1'), harnessName('h', 'x'.repeat(70) + '2')];
    expect(long[0]).not.toBe(long[1]);
    for (const name of [...long, harnessName('h', 'ünïcödé\u0000\u202e')]) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('drops regex keywords but not properties named like them, nor data', () => {
    const schema = {
      type: 'object',
      properties: { pattern: { type: 'string', pattern: '^(a+)+$' }, q: { anyOf: [{ type: 'string', pattern: 'x' }] } },
      patternProperties: { '^(a|a)*$': { type: 'string' } },
      $defs: { pattern: { type: 'string', pattern: 'y' } },
      enum: [{ pattern: 'kept' }],
      required: ['pattern'],
    };
    expect(withoutPatterns(schema)).toEqual({
      type: 'object',
      properties: { pattern: { type: 'string' }, q: { anyOf: [{ type: 'string' }] } },
      $defs: { pattern: { type: 'string' } },
      enum: [{ pattern: 'kept' }],
      required: ['pattern'],
    });
  });
});
