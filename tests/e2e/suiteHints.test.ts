import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

describe('tracegate validate: hints from the seeds’ habits', () => {
  it('a suite given as a JSON array gets one error telling it to use JSON Lines, exit 2', async () => {
    const file = path.join(tempDir(), 'tasks.json');
    writeFileSync(file, JSON.stringify([{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'q' }], null, 2) + '\n');
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tasks\.json:1: this file is one JSON array of 2 tasks; a suite is JSON Lines/);
    expect(result.stderr).not.toMatch(/invalid JSON/);
  });

  it('warns about an event type no trace carries (with the nearest known name) but accepts the seeds’ aliases, exit 0', async () => {
    const file = path.join(tempDir(), 'events.jsonl');
    writeFileSync(
      file,
      [
        { id: 'alias', prompt: 'p', expected_event_type: 'context_compressed' },
        { id: 'typo', prompt: 'p', expected_event_type: 'compresion' },
        { id: 'listed', prompt: 'p', checks: [{ type: 'contains', values: ['x'] }, { type: 'event_type', value: 'made_up_event' }] },
      ]
        .map((t) => JSON.stringify(t))
        .join('\n') + '\n',
    );
    const result = await runCli(['validate', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/3 tasks valid/);
    const warnings = result.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/events\.jsonl:2: field expected_event_type: unknown event type "compresion" \(did you mean compression\?\)/);
    expect(warnings[1]).toMatch(/events\.jsonl:3: field checks\.1\.value: unknown event type "made_up_event"/);
  });
});
