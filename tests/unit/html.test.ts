import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inertJson, renderHtml } from '../../src/reporters/html/renderHtml.js';
import { packJson } from '../../src/files/packJson.js';
import { ViewerTraces } from '../../src/reporters/html/viewerTraces.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';
import { tempDir } from '../helpers/cli.js';
import { makeReport } from '../helpers/reportBuilder.js';

describe('report.html construction', () => {
  it('embeds data that cannot close its script element and parses back unchanged', () => {
    const value = { a: '</script><script>alert(1)</script>', b: '<!-- x -->', c: '\u2028\u2029', d: 'a & b' };
    const text = inertJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('allows only its own hashed scripts, no eval, no requests', async () => {
    const report = makeReport([{ id: 'x<script>', trials: 'f' }]);
    const html = await renderHtml(report, { traceRoot: tempDir() });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!.replace(/&#39;/g, "'");
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline'[^;]*script|https?:/);
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(4);
    for (const script of inline) {
      expect(csp).toContain(`'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`);
    }
    expect(html.includes('x<script>')).toBe(false);
    // Outside the inlined libraries and the inert data, the markup references nothing external.
    const markup = html.replace(/<script[^>]*>[\s\S]*?<\/script>/g, '');
    expect(/<link |@import|@font-face|src=|https?:/.test(markup)).toBe(false);
  });

  it('embeds the traces a run packed as it went, the same as packing them from their files; it keeps no more than it may embed', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'traces'));
    const report = makeReport([{ id: 'a', trials: 'f' }, { id: 'b', trials: 'p' }, { id: 'c', trials: 'p' }]);
    const viewer = new ViewerTraces(2);
    for (const id of ['a', 'b', 'c']) {
      const trace = new TraceBuilder(id).llm().final(`answer ${id}`).build();
      writeFileSync(path.join(dir, `traces/${id}.e0.json`), JSON.stringify(trace));
      viewer.offer(`traces/${id}.e0.json`, trace);
    }
    expect(viewer.get('traces/c.e0.json')).toBeUndefined();
    const fromFiles = await renderHtml(report, { traceRoot: dir });
    expect(fromFiles.match(/class="trace"/g)).toHaveLength(3);
    // b's file is gone: the page still embeds it, from what the run packed, exactly as it was.
    rmSync(path.join(dir, 'traces/b.e0.json'));
    expect(await renderHtml(report, { traceRoot: dir, packed: viewer })).toBe(fromFiles);
    expect((await renderHtml(report, { traceRoot: dir })).match(/class="trace"/g)).toHaveLength(2);
  });

  it('a trace claimed for the page and packed elsewhere (the writer thread) embeds the same as one packed in place', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'traces'));
    const report = makeReport([{ id: 'a', trials: 'f' }]);
    const trace = new TraceBuilder('a').llm().final('answer a').build();
    writeFileSync(path.join(dir, 'traces/a.e0.json'), JSON.stringify(trace));
    const inPlace = new ViewerTraces();
    inPlace.offer('traces/a.e0.json', trace);
    const claimed = new ViewerTraces(1);
    const json = claimed.claim(trace);
    expect(json).not.toBeNull();
    expect(claimed.claim(trace)).toBeNull();
    claimed.add('traces/a.e0.json', packJson(json!));
    rmSync(path.join(dir, 'traces/a.e0.json'));
    const page = await renderHtml(report, { traceRoot: dir, packed: claimed });
    expect(page.match(/class="trace"/g)).toHaveLength(1);
    expect(page).toBe(await renderHtml(report, { traceRoot: dir, packed: inPlace }));
  });
});
