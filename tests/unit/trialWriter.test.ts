import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TracegateError } from '../../src/schema/runError.js';
import { TrialWriter } from '../../src/runner/trialWriter.js';
import { tempDir } from '../helpers/cli.js';

describe('TrialWriter (finished trials stored on a thread of their own)', () => {
  it('stores each trace and then its journal line, in order, by the time flush resolves', async () => {
    const dir = tempDir('tracegate-writer-');
    const journal = path.join(dir, 'results.jsonl');
    const writer = new TrialWriter(journal);
    for (let i = 0; i < 500; i++) {
      writer.write({ traceFile: path.join(dir, `t${i}.json`), trace: `{"n":${i}}\n`, line: `{"i":${i}}\n` });
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    writer.write({ traceFile: null, trace: null, line: '{"i":"errored, no trace"}\n' });
    await writer.flush();
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(501);
    expect(lines.slice(0, 3)).toEqual(['{"i":0}', '{"i":1}', '{"i":2}']);
    expect(readFileSync(path.join(dir, 't499.json'), 'utf8')).toBe('{"n":499}\n');
    await writer.close();
  });

  it('packs the traces report.html is to embed, after storing them, and hands each back under its key', async () => {
    const dir = tempDir('tracegate-writer-');
    const packed = new Map<string, string>();
    const writer = new TrialWriter(path.join(dir, 'results.jsonl'), (key, value) => packed.set(key, value));
    writer.write({ traceFile: path.join(dir, 'a.json'), trace: '{"a":1}\n', line: '{"i":"a"}\n', viewer: { key: 'traces/a.e0.json', json: '{"task_id":"a"}' } });
    writer.write({ traceFile: path.join(dir, 'b.json'), trace: '{"b":1}\n', line: '{"i":"b"}\n' });
    await writer.flush();
    expect([...packed.keys()]).toEqual(['traces/a.e0.json']);
    expect(gunzipSync(Buffer.from(packed.get('traces/a.e0.json')!, 'base64')).toString()).toBe('{"task_id":"a"}');
    expect(readFileSync(path.join(dir, 'a.json'), 'utf8')).toBe('{"a":1}\n');
    await writer.close();
  });

  it('a trace it cannot store fails the run: flush rejects naming why, no later line is written, later writes throw', async () => {
    const dir = tempDir('tracegate-writer-');
    const journal = path.join(dir, 'results.jsonl');
    const writer = new TrialWriter(journal);
    writer.write({ traceFile: path.join(dir, 'ok.json'), trace: '{}\n', line: '{"i":"ok"}\n' });
    writer.write({ traceFile: path.join(dir, 'no-such-folder', 'bad.json'), trace: '{}\n', line: '{"i":"bad"}\n' });
    writer.write({ traceFile: path.join(dir, 'after.json'), trace: '{}\n', line: '{"i":"after"}\n' });
    const failure = await writer.flush().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TracegateError);
    expect(failure).toMatchObject({ code: 'COULD_NOT_RUN', message: expect.stringMatching(/could not store a finished trial: ENOENT.*bad\.json/) });
    expect(readFileSync(journal, 'utf8')).toBe('{"i":"ok"}\n');
    expect(existsSync(path.join(dir, 'after.json'))).toBe(false);
    expect(() => writer.write({ traceFile: null, trace: null, line: '{}\n' })).toThrow(/could not store/);
    await expect(writer.close()).rejects.toThrow(/could not store/);
  });

  it('a journal it cannot open fails the run the same way, without crashing the process', async () => {
    const writer = new TrialWriter(path.join(tempDir('tracegate-writer-'), 'no-such-folder', 'results.jsonl'));
    writer.write({ traceFile: null, trace: null, line: '{}\n' });
    await expect(writer.flush()).rejects.toMatchObject({ code: 'COULD_NOT_RUN', message: expect.stringMatching(/could not store finished trials: ENOENT/) });
    await expect(writer.close()).rejects.toThrow(/could not store/);
  });
});
