import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, watch } from '../helpers/browser.js';

let browser: Browser;

describe.skipIf(!CHROMIUM)('report.html of a compare: the failure distributions and the task prompt', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('draws baseline versus current failed trials by reason and by layer, the regressed reason on top', async () => {
    const out = tempDir();
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--out', out, '-q']);
    expect(result.code).toBe(1);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watch(page);
    await page.goto(pathToFileURL(path.join(out, 'report.html')).href);
    await page.waitForFunction(() => {
      const s = (window as unknown as { __tracegate?: { ready: boolean; chartsRendered: number; chartErrors: string[] } }).__tracegate;
      return s?.ready && s.chartsRendered + s.chartErrors.length === document.querySelectorAll('.chart').length;
    });
    const state = await page.evaluate(() => (window as unknown as { __tracegate: { chartErrors: string[] } }).__tracegate);
    expect(state.chartErrors).toEqual([]);
    for (const id of ['triage-reasons', 'triage-layers']) {
      const figure = page.locator(`.chart[data-chart="${id}"]`);
      expect(await figure.getAttribute('data-rendered')).toBe('true');
      expect(await figure.locator('canvas').evaluate((c) => (c as HTMLCanvasElement).width)).toBeGreaterThan(50);
    }
    expect(await page.locator('.chart[data-chart="triage-reasons"] figcaption').textContent()).toMatch(/Failure reasons, baseline versus current/);
    // The bars the chart draws, as the page holds them: the regressed reason first.
    const bars = await page.evaluate(() => {
      const data = JSON.parse(document.getElementById('tracegate-data')!.textContent!) as { charts: Array<{ id: string; spec: { data: { values: Array<Record<string, unknown>> } } }> };
      return data.charts.find((c) => c.id === 'triage-reasons')!.spec.data.values;
    });
    expect(bars.slice(0, 2)).toEqual([
      { reason: 'INVALID_ARGUMENTS', run: 'baseline', trials: 0, change: 'INVALID_ARGUMENTS 0 → 3 (+3)' },
      { reason: 'INVALID_ARGUMENTS', run: 'current', trials: 3, change: 'INVALID_ARGUMENTS 0 → 3 (+3)' },
    ]);
    expect(seen.consoleErrors).toEqual([]);
    expect(seen.pageErrors).toEqual([]);

    // The task panel says what was asked, above the evidence and the traces.
    await page.fill('#filter-text', 'count_lines');
    await page.click('#task-rows tr');
    await page.locator('#detail .side-by-side').waitFor();
    expect(await page.locator('#detail .prompt pre').textContent()).toBe('How many lines does src/app.py have? Use the shell.');
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
