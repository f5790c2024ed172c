import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** Issue numbers and design notes live outside the repository: a clone's reader can follow neither. */
const CITATION = new RegExp(['\\bissues? #?\\d+\\b', 'DESIGN\\.md', '\\.\\./shared\\b'].join('|'), 'i');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(full).isDirectory() ? files(full) : /\.(ts|mjs|js|md|json)$/.test(name) ? [full] : [];
  });
}

describe('the repository cites nothing outside it', () => {
  it('no issue number, design note or folder beside the clone is cited in src, harness, docs, tests, bench, scripts or the README', () => {
    const cited = [path.join(ROOT, 'README.md'), ...['src', 'harness', 'docs', 'tests', 'bench', 'scripts'].flatMap((d) => files(path.join(ROOT, d)))]
      .filter((file) => CITATION.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file));
    expect(cited).toEqual([]);
  });
});
