import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, watch } from '../helpers/browser.js';
import { DEMO_TASKS } from '../helpers/demoSuite.js';

if (!CHROMIUM) {
  console.warn('\n*** Chromium is missing: the browser tests of report.html are SKIPPED. Install Debian\'s chromium (.ci/run does). ***\n');
  if (process.env['CI']) throw new Error('Chromium is required in CI: .ci/run installs Debian\'s chromium');
}

let browser: Browser;
let demoOut: string;

async function open(file: string): Promise<{ page: Page; seen: ReturnType<typeof watch> }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const seen = watch(page);
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __tracegate?: { ready: boolean; chartsRendered: number; chartErrors: string[] } }).__tracegate;
    return s?.ready && s.chartsRendered + s.chartErrors.length === document.querySelectorAll('.chart').length;
  });
  return { page, seen };
}

const rowCount = (page: Page) => page.locator('#task-rows tr').count();

describe.skipIf(!CHROMIUM)('report.html in headless Chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    demoOut = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--baseline', 'baselines/demo.json', '--out', demoOut, '-q']);
    expect(run.code).toBe(0);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders at least three vega-lite charts from disk, with no console errors and no network requests', async () => {
    const { page, seen } = await open(path.join(demoOut, 'report.html'));
    const state = await page.evaluate(() => (window as unknown as { __tracegate: { chartsRendered: number; chartErrors: string[] } }).__tracegate);
    expect(state.chartErrors).toEqual([]);
    expect(state.chartsRendered).toBeGreaterThanOrEqual(3);
    const canvases = await page.locator('.chart[data-rendered] canvas').evaluateAll((els) => els.map((c) => (c as HTMLCanvasElement).width));
    expect(canvases.length).toBeGreaterThanOrEqual(3);
    expect(canvases.every((w) => w > 50)).toBe(true);
    await expect.poll(() => page.locator('#model-label').textContent()).toMatch(/SCRIPTED/);
    expect(seen.consoleErrors).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
    expect(seen.requests).toEqual([pathToFileURL(path.join(demoOut, 'report.html')).href]);
    await page.close();
  });

  it('filters tasks by status, layer, reason, tag and text', async () => {
    const { page, seen } = await open(path.join(demoOut, 'report.html'));
    expect(await rowCount(page)).toBe(DEMO_TASKS);
    await page.selectOption('#filter-status', 'failed');
    expect(await rowCount(page)).toBe(3);
    await page.selectOption('#filter-layer', 'model');
    expect(await rowCount(page)).toBe(1);
    expect(await page.locator('#task-rows tr td.id').first().textContent()).toBe('config_port_and_db_001');
    await page.selectOption('#filter-layer', '');
    await page.selectOption('#filter-reason', 'MAX_STEPS_EXCEEDED');
    expect(await rowCount(page)).toBe(1);
    await page.selectOption('#filter-status', '');
    await page.selectOption('#filter-reason', '');
    await page.selectOption('#filter-tag', 'safety');
    expect(await rowCount(page)).toBe(6);
    await page.selectOption('#filter-tag', '');
    await page.fill('#filter-text', 'calculator');
    expect(await rowCount(page)).toBe(2);
    expect(await page.locator('#task-count').textContent()).toBe(`showing 2 of 2 tasks (filtered from ${DEMO_TASKS})`);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });

  it('opens a task: its trace as a timeline, failed checks, and the evidence highlighted', async () => {
    const { page, seen } = await open(path.join(demoOut, 'report.html'));
    await page.fill('#filter-text', 'changelog');
    await page.click('#task-rows tr');
    const detail = page.locator('#detail');
    await detail.locator('.timeline').waitFor();
    expect(await detail.locator('h2').textContent()).toBe('changelog_summary_001');
    expect(await detail.locator('.timeline > li').count()).toBe(3);
    expect(await detail.locator('.span.evidence').count()).toBe(1);
    expect(await detail.locator('.span.evidence').textContent()).toMatch(/FILE_NOT_FOUND/);
    expect(await detail.locator('.checks li.bad').textContent()).toMatch(/final answer lacks "1.4.2"/);
    expect(await detail.locator('.final pre').textContent()).toMatch(/There is no CHANGELOG.md/);
    expect(page.url()).toMatch(/#task=changelog_summary_001$/);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });

  it('opens a linked task (#task=…) with its embedded trace', async () => {
    const file = path.join(demoOut, 'report.html');
    const page = await browser.newPage();
    const seen = watch(page);
    await page.goto(`${pathToFileURL(file).href}#task=missing_readme_recovery_001`);
    await page.locator('#detail .timeline').waitFor();
    expect(await page.locator('#detail h2').textContent()).toBe('missing_readme_recovery_001');
    expect(await page.locator('#detail .timeline > li').count()).toBe(7);
    expect(await page.locator('#detail').textContent()).not.toMatch(/not embedded/);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });

  it('a malformed #task= link (bad percent-encoding) starts the page without an error', async () => {
    const page = await browser.newPage();
    const seen = watch(page);
    await page.goto(`${pathToFileURL(path.join(demoOut, 'report.html')).href}#task=%E0%A4%A`);
    await page.waitForFunction(() => (window as unknown as { __tracegate?: { ready: boolean } }).__tracegate?.ready);
    expect(seen.pageErrors).toEqual([]);
    expect(await rowCount(page)).toBe(DEMO_TASKS);
    await page.close();
  });

  it('shows the baseline and current traces of a regressed task side by side', async () => {
    const out = tempDir();
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--out', out, '-q']);
    expect(result.code).toBe(1);
    const { page, seen } = await open(path.join(out, 'report.html'));
    expect(await page.locator('#task-rows tr').first().locator('.badge.regressed').count()).toBe(1);
    await page.click('#task-rows tr >> nth=0');
    await page.locator('#detail .side-by-side').waitFor();
    const sides = page.locator('#detail .side-by-side > div');
    expect(await sides.count()).toBe(2);
    expect(await sides.nth(0).locator('h3').textContent()).toBe('baseline');
    expect(await sides.nth(1).locator('.span.evidence').count()).toBeGreaterThan(0);
    expect(await sides.nth(1).textContent()).toMatch(/INVALID_ARGUMENTS/);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });

  it('never executes script payloads from traces, answers, arguments or tags', async () => {
    const payloads = [
      '<img src=x onerror="window.__pwned=1;alert(1)">',
      '<script>window.__pwned=2</script>',
      '</script><script>window.__pwned=3</script>',
      '<svg onload="window.__pwned=4">',
      '"><iframe src="javascript:window.__pwned=5">',
      '\u2028</script><!--<script>window.__pwned=6</script>',
    ];
    const dir = tempDir();
    const cassettes = path.join(dir, 'cassettes');
    mkdirSync(cassettes);
    mkdirSync(path.join(dir, 'ws'));
    writeFileSync(path.join(dir, 'ws', 'evil <b onmouseover=x>name.md'), payloads.join('\n'));
    const lines = [
      { id: 'xss_agent', prompt: `Summarize ${payloads[0]}`, workspace: 'ws', expected_contains: ['never'], tags: [payloads[0]!, 'xss'] },
      { id: 'xss_policy', tool_call: { name: 'run_shell', arguments: { command: `echo '${payloads[1]}' ${payloads[3]}` } }, workspace: 'ws', expected_policy: 'deny', tags: [payloads[2]!] },
    ];
    writeFileSync(path.join(dir, 'xss.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    writeFileSync(
      path.join(cassettes, 'xss_agent.json'),
      JSON.stringify({
        schema_version: 'cassette/v1',
        kind: 'script',
        task_id: 'xss_agent',
        model: 'xss-script',
        interactions: [
          { response: { content: payloads[5], tool_calls: [{ name: 'read_file', arguments: { path: 'evil <b onmouseover=x>name.md' } }, { name: 'write_file', arguments: { path: payloads[4], content: payloads[2] } }] } },
          { response: { content: payloads.join(' ') } },
        ],
      }),
    );
    const out = path.join(dir, 'out');
    const run = await runCli(['run', path.join(dir, 'xss.jsonl'), '--cassettes', cassettes, '--out', out, '-q']);
    expect([0, 1]).toContain(run.code);

    const { page, seen } = await open(path.join(out, 'report.html'));
    for (const row of ['xss_agent', 'xss_policy']) {
      await page.fill('#filter-text', row);
      await page.click('#task-rows tr');
      await page.locator('#detail .timeline').waitFor();
      await page.locator('#detail details').evaluateAll((els) => els.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    }
    await page.fill('#filter-text', '');
    await page.click('#task-rows tr >> nth=0');
    await page.locator('#detail .timeline').waitFor();
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain('<img src=x onerror=');
    expect(text).toContain('</script><script>window.__pwned=3</script>');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('#app img, #app iframe, #app svg[onload], #app script').count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
    expect(seen.requests).toHaveLength(1);
    await page.close();
  });

  it('tracegate report re-renders the page from a stored report', async () => {
    const target = path.join(tempDir(), 'again.html');
    const result = await runCli(['report', path.join(demoOut, 'report.json'), '--out', target]);
    expect(result.code).toBe(0);
    const { page, seen } = await open(target);
    await page.fill('#filter-text', 'missing_readme');
    await page.click('#task-rows tr');
    await page.locator('#detail .timeline').waitFor();
    expect(await page.locator('#detail .timeline > li').count()).toBeGreaterThan(3);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });

  it('--epochs auto: the page shows each look and why the run stopped, and each task its trial count and why no more', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--max-epochs', '3', '--baseline', 'baselines/demo.json', '--out', out, '-q']);
    expect(run.code).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as {
      run: { adaptive: { stop_reason: string; stages: unknown[]; trials_run: number } };
      tasks: Array<{ id: string; adaptive: { trials: number; reason: string } }>;
    };
    const { page, seen } = await open(path.join(out, 'report.html'));
    const section = (await page.locator('#adaptive').textContent()) ?? '';
    expect(section).toContain('Epochs: auto');
    expect(section).toContain(`${report.run.adaptive.trials_run} trials`);
    expect(section).toContain(`Stopped: ${report.run.adaptive.stop_reason}`);
    expect(await page.locator('#adaptive tbody tr').count()).toBe(report.run.adaptive.stages.length);
    const task = report.tasks[0]!;
    await page.fill('#filter-text', task.id);
    await page.click('#task-rows tr');
    await expect.poll(() => page.locator('#detail .adaptive').textContent()).toBe(
      `epochs auto: ${task.adaptive.trials} ${task.adaptive.trials === 1 ? 'trial' : 'trials'} · stopped: ${task.adaptive.reason}`,
    );
    expect(seen.consoleErrors).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
    await page.close();
  });

  it('a run without --epochs auto has no such section', async () => {
    const { page } = await open(path.join(demoOut, 'report.html'));
    expect(await page.locator('#adaptive').count()).toBe(0);
    await page.close();
  });
});
