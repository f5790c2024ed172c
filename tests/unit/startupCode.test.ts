import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * What `tracegate --help` (or any command, before its action is imported) loads: the bundle's entry
 * and every chunk it imports statically, read from the bundle npm test builds. esbuild names each
 * module it inlines in a `// path` line, so the modules of the start are read from the files
 * themselves, not from a list kept beside them.
 */
function startupModules(): string[] {
  const dir = path.join(ROOT, 'dist/bundle');
  const seen = new Set<string>();
  const modules: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/^\/\/ ((?:node_modules|dist)\/\S+)$/gm)) modules.push(m[1]!);
    // Static imports only: `import { a } from "./chunk-X.js";` or `import "./chunk-X.js";`.
    for (const m of text.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"\.\/([^"]+)";/gm)) visit(m[1]!);
  };
  visit('main.js');
  return modules;
}

const packageOf = (module: string) => {
  const parts = module.split('/').slice(1);
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
};

describe('the code every start of the CLI loads', () => {
  const modules = startupModules();

  it('is read from the bundle (the test would pass on an empty list otherwise)', () => {
    expect(modules).toContain('dist/src/cli/main.js');
    expect(modules.some((m) => m.startsWith('node_modules/commander/'))).toBe(true);
  });

  it('holds no package but commander: schemas, statistics, regexes and parsers load with the command that uses them', () => {
    const packages = [...new Set(modules.filter((m) => m.startsWith('node_modules/')).map(packageOf))];
    expect(packages).toEqual(['commander']);
  });

  it("holds the command definitions, not any command's action", () => {
    const ours = modules.filter((m) => m.startsWith('dist/'));
    expect(ours).toEqual(expect.arrayContaining(['dist/src/cli/runCommands.js', 'dist/src/cli/storedCommands.js', 'dist/src/cli/traceCommands.js']));
    // The plain lists the help prints (cassetteMatch.js, formatNames.js, sandboxRequest.js) live beside
    // their owners; the code of those owners does not load.
    expect(ours.filter((m) => /\/(run|compare|stored|merge|trace)Actions?\.js$|\/(harness|adapters|runner|judging|statistics|report|baseline|gate|provider)\//.test(m))).toEqual([]);
  });
});
