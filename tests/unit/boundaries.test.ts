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

describe('import boundaries', () => {
  it('harness/ imports nothing from src/ but src/schema/ and src/provider/', () => {
    for (const file of sources(path.join(ROOT, 'harness'))) {
      for (const spec of imports(file)) {
        const target = resolved(file, spec);
        if (target.startsWith('src/')) expect(target, `${path.relative(ROOT, file)} imports ${spec}`).toMatch(/^src\/(schema|provider)\//);
      }
    }
  });

  it('src/provider/ imports only src/schema/ and node: (no harness, no platform code)', () => {
    for (const file of sources(path.join(ROOT, 'src/provider'))) {
      for (const spec of imports(file)) {
        const target = resolved(file, spec);
        expect(target, `${path.relative(ROOT, file)} imports ${spec}`).toMatch(/^(node:|src\/(schema|provider)\/)/);
      }
    }
  });

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

  it('the pure core (checks, classifier, diff, gate, shard selection) touches no clock, network or file', () => {
    const pure = [
      ...sources(path.join(ROOT, 'src/checks')),
      ...sources(path.join(ROOT, 'src/classify')),
      path.join(ROOT, 'src/baseline/diff.ts'),
      path.join(ROOT, 'src/baseline/significance.ts'),
      path.join(ROOT, 'src/baseline/stratifiedExact.ts'),
      path.join(ROOT, 'src/baseline/groupSequential.ts'),
      path.join(ROOT, 'src/baseline/adaptivePlan.ts'),
      path.join(ROOT, 'src/gate/gate.ts'),
      path.join(ROOT, 'src/orchestrator/shard.ts'),
    ];
    for (const file of pure) {
      for (const spec of imports(file)) expect(spec, `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^node:|^(fs|http|https|net|child_process)$/);
      expect(readFileSync(file, 'utf8'), path.relative(ROOT, file)).not.toMatch(/Date\.now|new Date\(|performance\.now|Math\.random/);
    }
  });

  it('src/ reaches harness/ only through its adapter, src/adapters/harnessAdapter.ts', () => {
    for (const file of sources(path.join(ROOT, 'src'))) {
      if (path.relative(ROOT, file) === 'src/adapters/harnessAdapter.ts') continue;
      for (const spec of imports(file)) expect(resolved(file, spec), `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^harness\//);
    }
  });

  it('the capture proxy knows nothing of the CLI, the harness or the runner', () => {
    for (const file of sources(path.join(ROOT, 'src/capture'))) {
      for (const spec of imports(file)) {
        expect(resolved(file, spec), `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^(harness\/|src\/(cli|runner|orchestrator|report|reporters)\/)/);
      }
    }
  });

  it('reporters only read a finished report', () => {
    for (const file of sources(path.join(ROOT, 'src/reporters'))) {
      for (const spec of imports(file)) {
        const target = resolved(file, spec);
        expect(target, `${path.relative(ROOT, file)} imports ${spec}`).not.toMatch(/^src\/(orchestrator|adapters|runner|gate|baseline|classify|checks)\//);
        expect(target).not.toMatch(/^harness\//);
      }
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
