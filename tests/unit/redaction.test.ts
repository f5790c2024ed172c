import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/schema/redact.js';

describe('redaction', () => {
  const redactor = createRedactor({ MY_SERVICE_TOKEN: 'tok-7f3a9b2c1d', HOME: '/root', SHORT_KEY: 'abc' });
  const cases: Array<[string, string]> = [
    ['openai', 'key sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4'],
    ['anthropic', 'sk-ant-api03-' + 'abcdefghijklmnopqrstuvwxyz012345'],
    ['aws', 'AKIA' + 'IOSFODNN7EXAMPLE'],
    ['github', 'ghp_' + 'a'.repeat(36)],
    ['github fine-grained', 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnop'],
    ['slack', 'xoxb-' + '123456789012-abcdefghijkl'],
    ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['bearer', 'Authorization: Bearer abcdef0123456789abcdef'],
    ['private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----'],
    ['assignment', 'db_password = "correct-horse-battery"'],
    ['env value', 'the token is tok-7f3a9b2c1d, ok'],
  ];

  it.each(cases)('%s', (_name, text) => {
    const out = redactor.text(text);
    expect(out).toContain('[REDACTED');
    for (const secret of text.match(/[A-Za-z0-9_-]{10,}/g) ?? []) {
      if (/^(Authorization|BEGIN|PRIVATE|db_password)$/.test(secret)) continue;
      if (text.includes(`${secret}`) && /sk-|AKIA|ghp_|github_pat|xoxb|eyJ|abcdef0123|MIIE|correct-horse|tok-7f/.test(secret)) {
        expect(out).not.toContain(secret);
      }
    }
  });

  it('keeps ordinary text and short or non-secret variables', () => {
    const text = 'HOME is /root; the abc test passed; see README.md';
    expect(redactor.text(text)).toBe(text);
  });

  it('redacts deep structures, including keys split by JSON escaping', () => {
    const value = { a: ['tok-7f3a9b2c1d'], b: { c: 'x sk-' + 'a'.repeat(30) }, n: 3, t: true, z: null };
    const out = redactor.deep(value);
    expect(JSON.stringify(out)).not.toMatch(/tok-7f3a9b2c1d|sk-a{30}/);
    expect(out.n).toBe(3);
    expect(out.t).toBe(true);
    expect(out.z).toBeNull();
  });

  it('copies only what it redacts: a clean value comes back as it is, and the input is never changed', () => {
    const clean = { id: 't1', trials: [{ passed: true, answer: 'ok', tags: ['a', 'b'] }], n: 3 };
    expect(redactor.deep(clean)).toBe(clean);

    const trials = [{ answer: 'ok' }, { answer: 'token tok-7f3a9b2c1d' }, { answer: 'after' }];
    const value = { head: { id: 't2' }, trials, tail: ['x'] };
    const before = JSON.stringify(value);
    const out = redactor.deep(value);
    expect(JSON.stringify(value)).toBe(before);
    expect(out).not.toBe(value);
    expect(out.trials[1]!.answer).toBe('token [REDACTED:env]');
    // The parts with nothing to redact, before and after the secret, are shared, not copied.
    expect(out.head).toBe(value.head);
    expect(out.tail).toBe(value.tail);
    expect(out.trials[0]).toBe(trials[0]);
    expect(out.trials[2]).toBe(trials[2]);
    expect(Object.keys(out)).toEqual(['head', 'trials', 'tail']);
  });

  it('keeps key order and both values when a redacted key meets one already there', () => {
    const secretKey = 'tok-7f3a9b2c1d';
    const out = redactor.deep({ first: 1, [secretKey]: 2, last: 3 });
    expect(Object.keys(out)).toHaveLength(3);
    expect(Object.keys(out)[0]).toBe('first');
    expect(Object.keys(out)[2]).toBe('last');
    expect(JSON.stringify(out)).not.toContain(secretKey);
  });

  it('keeps a parsed __proto__ field a field of the copy, before and after the redacted one', () => {
    // JSON.parse makes `__proto__` an own key; a copy built by assignment would set its prototype.
    const parsed = JSON.parse('{"__proto__": {"polluted": "yes"}, "note": "token tok-7f3a9b2c1d", "after": {"note": "tok-7f3a9b2c1d", "__proto__": {"polluted": "yes"}}}');
    const out = redactor.deep(parsed) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes"},"note":"token [REDACTED:env]","after":{"note":"[REDACTED:env]","__proto__":{"polluted":"yes"}}}');
    for (const copy of [out, out['after'] as object]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });
});
