import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, watch } from '../helpers/browser.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FIXTURES, SAMPLES } from '../helpers/samples.js';

describe.skipIf(!CHROMIUM)('report.html of `tracegate score` on imported traces', () => {
  let browser: Browser;
  let out: string;
  beforeAll(async () => {
    browser = await launchChromium();
    const traces = tempDir();
    expect((await runCli(['import', path.join(SAMPLES, 'inspect__log_tool_call_error.json'), '--out', traces])).code).toBe(0);
    out = tempDir();
    expect((await runCli(['score', path.join(FIXTURES, 'inspect-tool-errors.jsonl'), '--traces', traces, '--out', out])).code).toBe(0);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the imported Inspect trace in the viewer: every tool call with its mapped error type, and says it was imported", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watch(page);
    const file = path.join(out, 'report.html');
    await page.goto(`${pathToFileURL(file).href}#task=1`);
    await page.locator('#detail .timeline').waitFor();
    expect(await page.locator('#detail h2').textContent()).toBe('1');
    const spans = page.locator('#detail .timeline > li.kind-tool');
    expect(await spans.count()).toBe(11);
    const badges = await page.locator('#detail .timeline > li.kind-tool .result').evaluateAll((els) => els.map((e) => [...e.querySelectorAll(':scope > .badge')].map((b) => b.textContent).join(' ')));
    expect(badges).toEqual(['INVALID_ARGUMENTS', 'COMMAND_TIMEOUT', 'INVALID_ARGUMENTS', 'COMMAND_FAILED', 'PERMISSION_DENIED', 'FILE_NOT_FOUND', 'INVALID_ARGUMENTS', 'LIMIT_EXCEEDED', 'APPROVAL_DENIED', 'COMMAND_FAILED', 'ok truncated']);
    // The tool name comes from gen_ai.tool.name, read through the vocabulary the page carries.
    expect(await spans.first().locator('.call strong').textContent()).toBe('bash');
    expect(await page.locator('#detail .checks li.ok').count()).toBe(3);
    expect(await page.locator('#detail .final').textContent()).toMatch(/unknown/);
    await expect.poll(() => page.locator('#model-label').textContent()).toMatch(/IMPORTED/);
    expect(seen.pageErrors).toEqual([]);
    expect(seen.consoleErrors).toEqual([]);
    await page.close();
  });
});
