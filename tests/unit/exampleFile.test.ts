import { describe, expect, it } from 'vitest';
import { holdsOnlyPlaceholders, isExampleFile } from '../../harness/policy/exampleFile.js';

describe('an example file is judged by its content', () => {
  it('names: .example, .sample and .template', () => {
    expect(['.env.example', 'config/secrets.sample', 'app.env.template'].every(isExampleFile)).toBe(true);
    expect(['.env', '.env.local', 'secrets.json', 'example.env'].some(isExampleFile)).toBe(false);
  });

  it.each([
    'API_KEY=\nDATABASE_URL=postgres://localhost/app\n',
    'OPENAI_API_KEY=your-api-key-here\nSTRIPE_SECRET_KEY=sk_test_replace_me\n',
    'export TOKEN="<your token>"\nPASSWORD=changeme # set locally\n',
    'SECRET_KEY=${SECRET_KEY}\nAUTH_TOKEN=xxxxxxxxxxxx\nAWS_SECRET_ACCESS_KEY=****************\n',
    'password: "{{ vault_password }}"\n',
  ])('placeholders only: %j', (content) => {
    expect(holdsOnlyPlaceholders(content)).toBe(true);
  });

  it.each([
    'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234\n',
    'AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP\n',
    'DB_PASSWORD=hunter2hunter2\n',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n',
    'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n',
    'binary\0content',
    'STRIPE_KEY=sk_live_abcdefghijklmnopqrstuvwxyzhere\n',
  ])('a real secret: %j', (content) => {
    expect(holdsOnlyPlaceholders(content)).toBe(false);
  });
});
