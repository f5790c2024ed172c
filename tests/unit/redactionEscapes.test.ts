import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/schema/redact.js';
import { PLANTED_SECRETS, escapedForms, sensitiveParts } from '../helpers/plantedSecrets.js';

const ENV_SECRET = 'Wv7"Qx3\\Kp9-Jr5';
const redactor = createRedactor({ MY_SERVICE_TOKEN: ENV_SECRET });

/** The JSON escapes a secret can follow inside a JSON string that is itself stored as text. */
const ESCAPES = ['\\n', '\\t', '\\r', '\\"', '\\\\', '\\u0000', '\\u001b', '\\/'];

describe('redaction of JSON-escaped text', () => {
  it.each(PLANTED_SECRETS.map((s) => [s.family, s] as const))('%s: right after every escape, raw and escaped once or twice', (_family, planted) => {
    for (const esc of ESCAPES) {
      for (const form of [`note${esc}${planted.text}${esc}end`, ...escapedForms(`line\n${planted.text}\tend`)]) {
        const out = redactor.text(form);
        for (const part of sensitiveParts(planted)) expect(out, `${planted.family} after ${esc} in ${form.slice(0, 60)}`).not.toContain(part);
      }
    }
  });

  it('a secret inside a JSON string inside a JSON string (tool arguments) is redacted and the JSON still parses', () => {
    const args = JSON.stringify({ command: `printf 'x\\n'; echo "api_key=\\"hunter2-horse-battery\\"" && cat <<EOF\nghp_${'Ab1'.repeat(12)}\nEOF` });
    const stored = JSON.stringify({ arguments: args });
    const out = redactor.text(stored);
    expect(out).not.toMatch(/hunter2|Ab1Ab1/);
    expect(() => JSON.parse(JSON.parse(out).arguments)).not.toThrow();
    const assigned = redactor.text(JSON.stringify(JSON.stringify({ password: 'Tr0ub4dor-3x' })));
    expect(assigned).not.toContain('Tr0ub4dor');
    expect(JSON.parse(JSON.parse(assigned))).toEqual({ password: '[REDACTED:assigned]' });
  });

  it("an environment secret's JSON-escaped form is redacted too", () => {
    const out = redactor.text(JSON.stringify({ answer: `the value is ${ENV_SECRET}` }));
    expect(out).not.toContain('Qx3');
    expect(redactor.text(JSON.stringify(JSON.stringify(ENV_SECRET)))).not.toContain('Qx3');
  });

  it("the prefix of a key left by a command's own cut is withheld, at the end of text and of a line", () => {
    for (const planted of PLANTED_SECRETS.filter((s) => s.prefix)) {
      const token = planted.text.slice(planted.text.indexOf(planted.prefix!));
      const partial = token.slice(0, planted.prefix!.length + 8);
      for (const text of [`head says ${partial}`, `${partial}\nREADME.md`, JSON.stringify(`${partial}\nREADME.md`)]) {
        const out = redactor.text(text);
        expect(out, `${planted.family}: ${text}`).not.toContain(partial.slice(planted.prefix!.length));
        expect(out).toContain('README.md'.slice(0, text.includes('README') ? 9 : 0));
      }
    }
  });

  it('keeps ordinary text, and file names in rule reasons (a file name is not a secret)', () => {
    for (const text of ['task-runner finished\n', 'see docs/sk-overview.md', '{"path":"src/a.ts"}\\n', 'desk-lamp', 'the AIza prefix', 'eyJ']) {
      expect(redactor.text(text)).toBe(text);
    }
    expect(redactor.text('secret-path: config/.env.production matches the secret path pattern .env.*')).toBe('secret-path: config/.env.production matches the secret path pattern .env.*');
    expect(redactor.text('token_file=/run/secrets/deploy_token')).toBe('token_file=/run/secrets/deploy_token');
    expect(redactor.text('"\\nPWD=/home/me/project"')).toBe('"\\nPWD=/home/me/project"');
    expect(redactor.text('db_password = hunter2-horse')).toBe('db_password = [REDACTED:assigned]');
  });
});
