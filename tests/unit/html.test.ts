import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inertJson, renderHtml } from '../../src/reporters/html/renderHtml.js';
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
});
