import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../harness/index.js';
import { capOutput } from '../../harness/tools/types.js';
import { redactedTail } from '../../src/adapters/redactedTail.js';
import { createRedactor, cutAtToken, dropCutToken } from '../../src/schema/redact.js';
import { tempDir } from '../helpers/cli.js';

const ENV_SECRET = 'Zq9x-literal-77Kp';
const redactor = createRedactor({ MY_SERVICE_TOKEN: ENV_SECRET });

/** [text around the secret, its sensitive part]: every cut inside the sensitive part must hide all of it. */
const SECRETS: Array<[string, string]> = [
  ['openai', 'sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4'],
  ['github', 'ghp_' + 'Ab1'.repeat(12)],
  ['aws', 'AKIAIOSFODNN7EXAMPLE'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['env literal', ENV_SECRET],
  ['assignment', 'hunter2-correct-horse'],
];

describe('redaction before any cut', () => {
  it.each(SECRETS)('%s: a preview cut anywhere inside the secret shows none of it', (name, secret) => {
    const lead = name === 'assignment' ? 'x '.repeat(50) + 'db_password = ' : 'x '.repeat(50);
    const text = `${lead}${secret} and then more text`;
    for (let k = 1; k < secret.length; k++) {
      const cut = lead.length + k;
      const preview = redactor.preview(text, cut);
      expect(preview.length, `${name} cut at ${k}`).toBeLessThanOrEqual(cut);
      // Three characters of a secret would already narrow it; none may show.
      for (let i = 0; i + 4 <= secret.length; i++) expect(preview, `${name} cut at ${k}`).not.toContain(secret.slice(i, i + 4));
    }
    // The naive order (cut, then redact) leaks: the test can fail.
    const naive = redactor.text(text.slice(0, lead.length + 5));
    expect(naive).toContain(secret.slice(0, 5));
  });

  it('a preview far from any secret is the plain cut, and a secret shifted in by redaction is still redacted', () => {
    expect(redactor.preview('abc def', 3)).toBe('abc');
    const many = Array.from({ length: 400 }, () => ENV_SECRET).join(' ') + ' tail sk-proj-' + 'Q'.repeat(30);
    const preview = redactor.preview(many, 8000);
    expect(preview).not.toContain(ENV_SECRET.slice(0, 5));
    expect(preview).not.toMatch(/sk-proj-Q/);
  });

  it('cutAtToken drops a token straddling the cut whole, for text that is redacted later', () => {
    expect(cutAtToken('error: key sk-proj-A1b2C3d4E5f6G7h8I9j0 rejected', 20)).toBe('error: key ');
    expect(cutAtToken('short', 20)).toBe('short');
    expect(cutAtToken('two words here', 9)).toBe('two words');
  });

  it('a text that is one long token keeps a hard-cut part instead of being cut to empty', () => {
    const blob = 'A'.repeat(20_000);
    expect(cutAtToken(blob, 1000)).toBe('A'.repeat(1000 - 512));
    expect(dropCutToken('answer ' + blob, 'end')).toBe('answer ' + 'A'.repeat(20_000 - 512));
    expect(dropCutToken(blob.slice(0, 100) + ' rest', 'start')).toBe(' rest');
    const tail = redactedTail(redactor, blob.slice(0, 16 * 1024), 4000, true);
    expect(tail).toBe('A'.repeat(4000 - 512));
    // A secret at the end of a long token is still cut away with the partial token.
    expect(cutAtToken('x'.repeat(600) + 'sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4', 630)).not.toContain('sk-proj');
  });

  it('PWD and OLDPWD in an environment dump are paths, not secrets; a password-like name is still redacted', () => {
    expect(redactor.text('PWD=/home/me/project OLDPWD=/tmp/somewhere')).toBe('PWD=/home/me/project OLDPWD=/tmp/somewhere');
    expect(redactor.text('export PWD=/home/me/project')).toBe('export PWD=/home/me/project');
    expect(redactor.text('DB_PWD=hunter2-horse')).toBe('DB_PWD=[REDACTED:assigned]');
    expect(redactor.text('db_pwd = hunter2-horse')).toBe('db_pwd = [REDACTED:assigned]');
    expect(redactor.text('PWD_SECRET=hunter2-horse')).toBe('PWD_SECRET=[REDACTED:assigned]');
  });

  it('redacts object keys as well as values, and keeps both values when two keys redact alike', () => {
    const a = 'sk-proj-' + 'A'.repeat(30);
    const b = 'sk-proj-' + 'B'.repeat(30);
    const out = redactor.deep({ tags: { [a]: 1, [b]: 2, plain: 3 }, [ENV_SECRET]: { nested: ENV_SECRET } });
    const json = JSON.stringify(out);
    expect(json).not.toContain(a);
    expect(json).not.toContain(b);
    expect(json).not.toContain(ENV_SECRET);
    expect(Object.values(out.tags).sort()).toEqual([1, 2, 3]);
    expect(out.tags).toHaveProperty('plain', 3);
  });

  it('the sandbox output cap and the file tools cap drop a secret they would split', async () => {
    const secret = 'sk-proj-' + 'Hx5'.repeat(10);
    const text = `${'y'.repeat(40)} ${secret} tail`;
    for (const cap of [45, 50, 60]) {
      const capped = capOutput(text, cap).text;
      expect(capped).not.toContain('sk-proj-H');
      expect(redactor.text(capped)).not.toMatch(/Hx5/);
    }
    const run = await runCommand(`printf '%s' '${text}'`, { workspace: realpathSync(tempDir('tracegate-sandbox-')), timeoutMs: 10_000, outputCap: 52, mode: 'process' });
    expect(run.truncated).toBe(true);
    expect(run.output).toBe(`${'y'.repeat(40)} `);
  });
});
