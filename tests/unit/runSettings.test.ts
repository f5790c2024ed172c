import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunSettings, RUN_SETTINGS_FILE, settingsChanges, writeRunSettings } from '../../src/runner/runSettings.js';
import { tempDir } from '../helpers/cli.js';

describe('run-settings.json', () => {
  it('round-trips through the file, and is absent for a folder without one', () => {
    const dir = tempDir();
    expect(readRunSettings(dir)).toBeNull();
    writeRunSettings(dir, { policy: 'a.json', timeout_ms: '300000' });
    expect(readRunSettings(dir)).toEqual({ policy: 'a.json', timeout_ms: '300000' });
    expect(JSON.parse(readFileSync(path.join(dir, RUN_SETTINGS_FILE), 'utf8')).schema_version).toBe('run-settings/v1');
  });

  it('names every change old → new, including a setting only one side has', () => {
    expect(settingsChanges({ policy: 'a', sandbox: 'auto', model: 'm' }, { policy: 'b', sandbox: 'auto', variant: 'v' })).toEqual([
      'policy: a → b',
      'model: m → (not recorded)',
      'variant: (not recorded) → v',
    ]);
    expect(settingsChanges({ policy: 'a' }, { policy: 'a' })).toEqual([]);
  });

  it('a broken or foreign file is bad input naming it', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, RUN_SETTINGS_FILE), '{"settings": ');
    expect(() => readRunSettings(dir)).toThrow(/run-settings\.json: not valid JSON/);
    writeFileSync(path.join(dir, RUN_SETTINGS_FILE), '{"schema_version": "x/v9", "settings": {}}');
    expect(() => readRunSettings(dir)).toThrow(expect.objectContaining({ code: 'BAD_INPUT', message: expect.stringMatching(/field schema_version/) }));
  });
});
