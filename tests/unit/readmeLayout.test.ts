import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** The folders directly inside `dir`, as `dir/name/`. */
function folders(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir))
    .filter((name) => statSync(path.join(ROOT, dir, name)).isDirectory())
    .map((name) => `${dir}/${name}/`);
}

/** The paths the README's Layout table names in its first column. */
function layoutPaths(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Layout\n');
  expect(start, 'README.md has a "## Layout" section').toBeGreaterThan(-1);
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe("the README's layout table", () => {
  it('names every folder of src/ and harness/, and no folder that is gone', () => {
    const named = layoutPaths();
    const actual = [...folders('src'), ...folders('harness')];
    expect(actual.filter((folder) => !named.includes(folder)), 'folders missing from the table').toEqual([]);
    const stale = named.filter((p) => /^(src|harness)\/.+\/$/.test(p) && !actual.includes(p));
    expect(stale, 'rows for folders that do not exist').toEqual([]);
    // Every other path it names exists too.
    for (const p of named) expect(statSync(path.join(ROOT, p), { throwIfNoEntry: false }), p).toBeDefined();
  });

  it('keeps its results table and leaves the benchmark log to docs/performance.md', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('### Benchmark results');
    expect(readme).not.toContain('The raw output of the pipeline sections');
    expect(readFileSync(path.join(ROOT, 'docs/performance.md'), 'utf8')).toContain('The raw output of the pipeline sections');
  });
});
