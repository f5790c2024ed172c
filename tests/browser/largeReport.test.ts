import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reporters/html/renderHtml.js';
import { CHROMIUM, launchChromium, watch } from '../helpers/browser.js';
import { tempDir } from '../helpers/cli.js';
import { makeReport } from '../helpers/reportBuilder.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';

// A report bigger than one page of the table: 250 tasks, every tenth failing, 3 traces embedded.
const TASKS = 250;
const id = (i: number) => `task_${String(i).padStart(3, '0')}`;
let browser: Browser;
let file: string;

async function open(hash = ''): Promise<{ page: Page; seen: ReturnType<typeof watch> }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const seen = watch(page);
  await page.goto(pathToFileURL(file).href + hash);
  await page.waitForFunction(() => (window as unknown as { __tracegate?: { ready: boolean } }).__tracegate?.ready === true);
  return { page, seen };
}
const ids = (page: Page) => page.locator('#task-rows tr td.id').allTextContents();

describe.skipIf(!CHROMIUM)('a large report.html in headless Chromium', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    const dir = tempDir();
    mkdirSync(path.join(dir, 'traces'));
    const specs = Array.from({ length: TASKS }, (_, i) => ({ id: id(i), trials: i % 10 === 0 ? 'f' : 'p', tags: [i < 125 ? 'first_half' : 'second_half'] }));
    for (const spec of specs) {
      const trace = new TraceBuilder(spec.id).llm().tool('read_file', { path: 'README.md' }).final(`answer of ${spec.id}`).build();
      writeFileSync(path.join(dir, 'traces', `${spec.id}.e0.json`), JSON.stringify(trace));
    }
    file = path.join(dir, 'report.html');
    writeFileSync(file, await renderHtml(makeReport(specs), { traceRoot: dir, maxEmbeddedTraces: 3 }));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows one page of rows at a time and pages through all of them, failures first', async () => {
    const { page, seen } = await open();
    expect(await ids(page)).toHaveLength(100);
    expect(await page.locator('#task-count').textContent()).toBe('showing 1–100 of 250 tasks');
    expect(await page.locator('#page-label').textContent()).toBe('page 1 of 3');
    expect((await ids(page)).slice(0, 3)).toEqual([id(0), id(10), id(20)]);
    expect(await page.locator('#page-prev').isDisabled()).toBe(true);

    const seenIds = new Set(await ids(page));
    await page.click('#page-next');
    expect(await page.locator('#task-count').textContent()).toBe('showing 101–200 of 250 tasks');
    for (const x of await ids(page)) seenIds.add(x);
    await page.click('#page-last');
    expect(await page.locator('#page-label').textContent()).toBe('page 3 of 3');
    expect(await page.locator('#page-next').isDisabled()).toBe(true);
    for (const x of await ids(page)) seenIds.add(x);
    expect(seenIds.size).toBe(TASKS);
    await page.click('#page-first');
    expect(await page.locator('#page-label').textContent()).toBe('page 1 of 3');
    expect(seen.consoleErrors).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
    await page.close();
  });

  it('filters over every row, not just the page shown, and starts the result at its first page', async () => {
    const { page } = await open();
    await page.click('#page-last');
    await page.fill('#filter-text', 'task_24');
    expect(await ids(page)).toEqual(Array.from({ length: 10 }, (_, i) => id(240 + i)));
    expect(await page.locator('#task-count').textContent()).toBe('showing 10 of 10 tasks (filtered from 250)');
    expect(await page.locator('#pager').isHidden()).toBe(true);
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-tag', 'second_half');
    expect(await page.locator('#task-count').textContent()).toBe('showing 1–100 of 125 tasks (filtered from 250)');
    expect(await page.locator('#page-label').textContent()).toBe('page 1 of 2');
    await page.close();
  });

  it('opens a linked task on a later page: the table turns to its page and marks its row', async () => {
    const target = id(237);
    const { page, seen } = await open(`#task=${target}`);
    await page.locator('#detail h2').waitFor();
    expect(await page.locator('#detail h2').textContent()).toBe(target);
    await expect.poll(() => page.locator('#page-label').textContent()).toBe('page 3 of 3');
    expect(await page.locator('#task-rows tr.selected td.id').textContent()).toBe(target);
    // A passing task's trace is not embedded here: the page links the file beside it instead.
    const link = page.locator('#detail a.trace-link');
    expect(await link.getAttribute('href')).toBe(`traces/${target}.e0.json`);
    expect(await page.locator('#detail').textContent()).toMatch(/not embedded/);
    expect(seen.requests).toHaveLength(1);

    // Changing the hash opens another task (a failing one, whose trace is embedded).
    await page.evaluate(() => (location.hash = '#task=task_000'));
    await expect.poll(() => page.locator('#detail h2').textContent()).toBe(id(0));
    await page.locator('#detail .timeline').waitFor();
    expect(await page.locator('#detail .final pre').textContent()).toBe(`answer of ${id(0)}`);
    expect(await page.locator('#page-label').textContent()).toBe('page 1 of 3');
    await page.click('#detail button.close');
    expect(await page.locator('#task-rows tr.selected').count()).toBe(0);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });
});
