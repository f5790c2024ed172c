import { describe, expect, it } from 'vitest';
import { cassetteKey, redactedArguments } from '../../harness/model/cassetteKey.js';
import { requestHash } from '../../harness/model/requestHash.js';
import type { ModelRequest } from '../../harness/model/types.js';
import { createRedactor } from '../../src/schema/redact.js';

const redactor = createRedactor({});

describe('redactedArguments', () => {
  it('leaves arguments with nothing to redact as they are, byte for byte', () => {
    const args = '{ "path" : "README.md" }';
    expect(redactedArguments(args, redactor)).toBe(args);
  });

  it('keeps JSON valid where redacting the raw text would cut a string at an escaped quote', () => {
    const args = JSON.stringify({ path: 'cfg.py', content: 'api_key = os.environ["KEY"]\n' });
    // (An assigned value now stops at a JSON escape, so the raw text's redaction keeps it valid too.)
    expect(JSON.parse(redactor.text(args))).toEqual({ path: 'cfg.py', content: 'api_key = [REDACTED:assigned]"KEY"]\n' });
    expect(JSON.parse(redactedArguments(args, redactor))).toEqual({ path: 'cfg.py', content: 'api_key = [REDACTED:assigned]"KEY"]\n' });
  });

  it('still redacts a secret that spans two literals ("password": "…") on that path', () => {
    const args = JSON.stringify({ password: 'hunter22xyz', content: 'api_key = os.environ["KEY"]' });
    const redacted = redactedArguments(args, redactor);
    expect(redacted).not.toContain('hunter22xyz');
    expect(JSON.parse(redacted).content).toBe('api_key = [REDACTED:assigned]"KEY"]');
  });

  it('is stable: redacting its own output changes nothing (a replay looks its request up by the same key)', () => {
    for (const args of [JSON.stringify({ content: 'api_key = os.environ["KEY"]', password: 'hunter22xyz' }), '{"token": "abcdef123456"}', 'not json, token=abcdef123456']) {
      const once = redactedArguments(args, redactor);
      expect(redactedArguments(once, redactor)).toBe(once);
    }
  });
});

describe('cassetteKey', () => {
  const request = (content: string, args: string): ModelRequest => ({
    model: 'm',
    temperature: 0,
    tools: [],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content, tool_calls: [{ id: 'a', type: 'function', function: { name: 'write_file', arguments: args } }] },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
    ],
  });

  it('is the plain request hash when nothing is redacted, so recordings made before still match', () => {
    const plain = request('reading it', '{"path":"README.md"}');
    expect(cassetteKey(plain, redactor)).toBe(requestHash(plain));
  });

  it('is the same for the live request and the one a replay sends back with the redacted reply', () => {
    const args = JSON.stringify({ path: 'cfg.py', content: 'api_key = os.environ["KEY"]' });
    const live = request('I set password = hunter22 first', args);
    const replayed = request(redactor.text('I set password = hunter22 first'), redactedArguments(args, redactor));
    expect(cassetteKey(replayed, redactor)).toBe(cassetteKey(live, redactor));
    expect(requestHash(replayed)).not.toBe(requestHash(live));
  });
});
