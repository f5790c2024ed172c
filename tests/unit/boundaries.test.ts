import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
}

const resolved = (file: string, spec: string) => (spec.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(file), spec)) : spec);

/**
 * What each folder of src/ and harness/ may import besides itself and node: builtins: other folders
 * (or a top-level file such as src/version.ts) and npm packages (Playwright's DEPS.list). A folder
 * missing here, or an import missing from its row, fails the test: a new dependency is a decision
 * written down here. Layers run downward: schema/ (contracts) at the bottom, cli/ at the top.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'src/schema': ['zod', 're2js'],
  'src/types': [],
  'src/version.ts': ['src/files'],
  'src/provider': ['src/schema'],
  'src/files': ['src/schema', 'zod'],
  'src/statistics': ['src/schema', 'jstat'],
  // the checks, the failure classifier and judgeTrial, which runs both on one trial's trace.
  'src/judging': ['src/schema', 'ajv', 'zod'],
  'src/suite': ['src/schema', 'src/judging', 'zod'],
  'src/orchestrator': ['src/schema', 'p-limit'],
  'src/traceio': ['src/schema', 'src/version.ts', 'src/files', 'fzstd', 'protobufjs', '@streamparser/json'],
  'src/capture': ['src/schema', 'src/provider', 'src/traceio', 'src/files', 'zod', 're2js'],
  'src/report': ['src/schema', 'src/judging', 'src/suite', 'src/version.ts', 'src/statistics'],
  'src/baseline': ['src/schema', 'src/files', 'src/statistics'],
  'src/gate': ['src/schema', 'src/report', 'src/statistics'],
  'src/reporters': ['src/schema', 'src/report', 'src/files', 'src/statistics', 'cli-table3'],
  // checks and capture: the rubric judge builds its request with the checks' fixed prompt and replays or records cassettes as the proxy does.
  'src/runner': ['src/schema', 'src/orchestrator', 'src/provider', 'src/judging', 'src/capture', 'src/report', 'src/suite', 'src/baseline', 'src/adapters', 'src/files', 'src/statistics'],
  // harness/ only through src/adapters/harnessAdapter.ts (the test below).
  'src/adapters': ['src/schema', 'src/provider', 'src/capture', 'src/orchestrator', 'harness', 'src/files'],
  'src/cli': ['src/schema', 'src/version.ts', 'src/provider', 'src/judging', 'src/suite', 'src/orchestrator', 'src/traceio', 'src/report', 'src/baseline', 'src/gate', 'src/reporters', 'src/runner', 'src/adapters', 'src/capture', 'src/files', 'commander'],
  // The harness reads only the contracts and the provider client of src/.
  'harness/trace': ['src/schema'],
  'harness/model': ['src/schema', 'src/provider', 'src/files', 'openai'],
  'harness/compression': ['harness/model'],
  'harness/approval': [],
  // policy, sandbox and git call each other (workspace paths, example files): a cycle still to split.
  'harness/policy': ['src/schema', 'harness/sandbox', 'src/files', 'web-tree-sitter'],
  'harness/git': ['src/schema', 'harness/policy', 'src/files'],
  'harness/sandbox': ['src/schema', 'harness/git', 'harness/policy'],
  'harness/tools': ['src/schema', 'harness/model', 'harness/sandbox', 'zod'],
  'harness/mcp': ['src/schema', 'harness/sandbox', 'harness/tools', '@modelcontextprotocol/sdk', 'zod'],
  'harness/agent': ['src/schema', 'src/provider', 'harness/approval', 'harness/compression', 'harness/mcp', 'harness/model', 'harness/policy', 'harness/sandbox', 'harness/tools', 'harness/trace', 'zod'],
  'harness/index.ts': ['harness/agent', 'harness/approval', 'harness/model', 'harness/policy', 'harness/sandbox', 'harness/tools'],
};

/** The folder (or top-level file) a repository path belongs to: `src/cli`, `harness/model`, `src/version.ts`. */
function unitOf(rel: string): string {
  const parts = rel.split('/');
  return parts.length <= 2 ? rel : parts.slice(0, 2).join('/');
}

/** What an import names, as the table spells it: a unit of src/ or harness/, an npm package, or null for node: and other files of the repository. */
function importedUnit(fromRel: string, spec: string): string | null {
  if (spec.startsWith('node:')) return null;
  if (!spec.startsWith('.')) return spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const target = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, fromRel)), spec)).replace(/\.js$/, '.ts');
  if (!/^(src|harness)\//.test(target)) return null;
  // The adapter of the harness imports it as one: any file of harness/.
  if (target.startsWith('harness/') && fromRel.startsWith('src/')) return 'harness';
  return unitOf(target);
}

/** Why `fromRel` may not import `spec` (null when the table allows it). */
function violation(fromRel: string, spec: string): string | null {
  const from = unitOf(fromRel);
  const to = importedUnit(fromRel, spec);
  if (to === null || to === from) return null;
  const allowed = MAY_IMPORT[from];
  if (!allowed) return `${fromRel}: its folder ${from} has no row in the allow-list table`;
  return allowed.includes(to) ? null : `${fromRel} imports ${spec} (${to}), which ${from} may not import`;
}

/** The runtime imports of a file (type-only imports are erased and make no cycle). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(import|export)(\s+type\b)?[^'"]*?from\s+['"]([^'"]+)['"]/g)].filter((m) => !m[2]).map((m) => m[3]!).concat([...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!));
}

describe('the allow-list table of imports', () => {
  const files = ['src', 'harness'].flatMap((dir) => sources(path.join(ROOT, dir))).map((f) => path.relative(ROOT, f));

  it('every import of src/ and harness/ is one its folder may make', () => {
    const found = files.flatMap((rel) => imports(path.join(ROOT, rel)).map((spec) => violation(rel, spec)).filter((v): v is string => v !== null));
    expect(found).toEqual([]);
  });

  it('no row allows what its folder no longer imports, so the table says what each folder needs', () => {
    const used = new Map<string, Set<string>>();
    for (const rel of files) {
      for (const spec of imports(path.join(ROOT, rel))) {
        const to = importedUnit(rel, spec);
        if (to !== null) used.set(unitOf(rel), (used.get(unitOf(rel)) ?? new Set()).add(to));
      }
    }
    const stale = Object.entries(MAY_IMPORT).flatMap(([from, allowed]) => allowed.filter((to) => !used.get(from)?.has(to)).map((to) => `${from} -> ${to}`));
    expect(stale).toEqual([]);
  });

  it('every folder has a row, and no row names a folder that is gone', () => {
    const units = new Set(files.map(unitOf));
    expect([...units].filter((u) => !(u in MAY_IMPORT)), 'folders without a row').toEqual([]);
    expect(Object.keys(MAY_IMPORT).filter((u) => !units.has(u)), 'rows without a folder').toEqual([]);
  });

  it('the folders of src/ import one another without a cycle', () => {
    const seen = new Map<string, 'open' | 'done'>();
    const cycle = (unit: string, trail: string[]): string[] | null => {
      if (seen.get(unit) === 'done') return null;
      if (seen.get(unit) === 'open') return [...trail.slice(trail.indexOf(unit)), unit];
      seen.set(unit, 'open');
      for (const next of (MAY_IMPORT[unit] ?? []).filter((u) => u.startsWith('src/'))) {
        const found = cycle(next, [...trail, unit]);
        if (found) return found;
      }
      seen.set(unit, 'done');
      return null;
    };
    for (const unit of Object.keys(MAY_IMPORT).filter((u) => u.startsWith('src/'))) expect(cycle(unit, [])).toBeNull();
  });

  it('no two files import each other at run time', () => {
    const graph = new Map(files.map((rel) => [rel, runtimeImports(path.join(ROOT, rel)).filter((s) => s.startsWith('.')).map((s) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, rel)), s)).replace(/\.js$/, '.ts'))]));
    const pairs = [...graph].flatMap(([a, deps]) => deps.filter((b) => a < b && graph.get(b)?.includes(a)).map((b) => `${a} <-> ${b}`));
    expect(pairs).toEqual([]);
  });

  it('would refuse each of the upward imports the code once had', () => {
    const upward: [string, string][] = [
      ['src/capture/captureProxy.ts', '../adapters/runErrorCodes.js'],
      ['src/traceio/otlpSend.ts', '../capture/otlpProto.js'],
      ['src/orchestrator/orchestrate.ts', '../adapters/types.js'],
      ['src/runner/executeRun.ts', '../reporters/html/viewerTraces.js'],
      ['src/runner/trialWriterWorker.ts', '../reporters/html/packJson.js'],
    ];
    for (const [from, spec] of upward) expect(violation(from, spec), `${from} -> ${spec}`).toMatch(/may not import/);
    // And what they import now is allowed.
    expect(violation('src/capture/captureProxy.ts', '../schema/runErrorCodes.js')).toBeNull();
    expect(violation('src/traceio/otlpSend.ts', './otlpProto.js')).toBeNull();
    expect(violation('src/orchestrator/orchestrate.ts', '../schema/adapter.js')).toBeNull();
    expect(violation('src/runner/trialWriterWorker.ts', '../files/packJson.js')).toBeNull();
    // A package a folder does not list, and a folder without a row.
    expect(violation('src/schema/task.ts', 'commander')).toMatch(/may not import/);
    expect(violation('src/newfolder/x.ts', '../schema/task.js')).toMatch(/no row/);
  });
});

describe('import boundaries', () => {

  it('only harness/mcp/ talks MCP, and the policy (harness/policy/) starts no process', () => {
    for (const dir of ['harness', 'src']) {
      for (const file of sources(path.join(ROOT, dir))) {
        const rel = path.relative(ROOT, file);
        for (const spec of imports(file)) {
          if (spec.startsWith('@modelcontextprotocol/')) expect(rel, `${rel} imports ${spec}`).toMatch(/^harness\/mcp\//);
          if (rel.startsWith('harness/policy/')) expect(spec, `${rel} imports ${spec}`).not.toMatch(/child_process/);
        }
      }
    }
  });

  it('the pure core (judging, statistics, diff, gate, shard selection) touches no clock, network or file', () => {
    const pure = [
      ...sources(path.join(ROOT, 'src/judging')),
      ...sources(path.join(ROOT, 'src/statistics')),
      path.join(ROOT, 'src/baseline/diffReports.ts'),
      path.join(ROOT, 'src/gate/evaluateGate.ts'),
      path.join(ROOT, 'src/orchestrator/shard.ts'),
    ];
    for (const file of pure) {
      // node:module only loads a package on first use (createRequire): code, not a clock, network or file.
      for (const spec of imports(file)) expect(spec, `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^node:(?!module$)|^(fs|http|https|net|child_process)$/);
      expect(readFileSync(file, 'utf8'), path.relative(ROOT, file)).not.toMatch(/Date\.now|new Date\(|performance\.now|Math\.random/);
    }
  });

  it('src/ reaches harness/ only through its adapter, src/adapters/harnessAdapter.ts', () => {
    for (const file of sources(path.join(ROOT, 'src'))) {
      if (path.relative(ROOT, file) === 'src/adapters/harnessAdapter.ts') continue;
      for (const spec of imports(file)) expect(resolved(file, spec), `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^harness\//);
    }
  });


  it('trace importers and the exporter are pure: only the file readers and writers and otlpSend.ts touch files or the network', () => {
    const io = new Set(['src/traceio/traceFiles.ts', 'src/traceio/otlpSend.ts', 'src/traceio/traceInput.ts', 'src/traceio/lineReader.ts', 'src/traceio/otlpDocument.ts', 'src/traceio/spilledText.ts']);
    const pure = [...sources(path.join(ROOT, 'src/traceio')).filter((f) => !io.has(path.relative(ROOT, f))), path.join(ROOT, 'src/capture/mergeSpans.ts')];
    for (const file of pure) {
      for (const spec of imports(file)) expect(spec, `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^node:(fs|http|https|net|child_process)|^(fs|http|https|net|child_process)$/);
      expect(readFileSync(file, 'utf8'), path.relative(ROOT, file)).not.toMatch(/Date\.now|performance\.now|Math\.random|\bfetch\(/);
    }
  });
});
