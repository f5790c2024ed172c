import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/schema/redact.js';

// The redactor skips its pattern replaces for strings no pattern could match; these are the cases
// where that shortcut must not skip: every kind of secret, alone, mixed and in any letter case the
// patterns accept, plus plain text that must come back unchanged (and the same string).
describe('redaction shortcut for strings without secrets', () => {
  const redactor = createRedactor({});
  const secrets: Array<[string, string]> = [
    ['openai_key', 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2'],
    ['anthropic_key', 'sk-ant-api03-' + 'abcdefghijklmnopqrstuvwxyz012345'],
    ['stripe_key', 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc'],
    ['aws_access_key', 'ASIA' + 'IOSFODNN7EXAMPLE'],
    ['github_token', 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnop'],
    ['slack_token', 'xoxp-' + '123456789012-abcdefghijkl'],
    ['google_api_key', 'AIza' + 'SyA-1234567890abcdefghijklmnopqrstu'],
    ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['bearer_token', 'Token abcdefghijklmnop0123'],
    ['private_key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA'],
  ];

  it('redacts every kind of secret inside ordinary text', () => {
    for (const [label, secret] of secrets) {
      const out = redactor.text(`step 3: the tool printed ${secret} and stopped`);
      expect(out, label).toContain(`[REDACTED:${label}]`);
      expect(out, label).not.toContain(secret.slice(-12));
    }
  });

  it('redacts assignments in any letter case, also next to a key pattern', () => {
    expect(redactor.text('PASSWORD: "Tr0ub4dor&3x"')).toBe('PASSWORD: "[REDACTED:assigned]"');
    expect(redactor.text('Client_Secret=abcdef123456')).toBe('Client_Secret=[REDACTED:assigned]');
    const both = redactor.text(`api_key=${secrets[0]![1]} and db_pwd=hunter2hunter2`);
    expect(both).toBe('api_key=[REDACTED:openai_key] and db_pwd=[REDACTED:assigned]');
  });

  it('returns text without secrets unchanged', () => {
    for (const text of ['', 'ok', 'The result is 4.', 'sk-short', 'token', 'password:', 'AKIA lowercase akiaiosfodnn7example', '{"path":"src/a.ts"}']) {
      expect(redactor.text(text)).toBe(text);
    }
  });
});
