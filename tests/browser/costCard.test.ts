import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, watch } from '../helpers/browser.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';
import { DEFAULT_PRICE_TABLE } from '../../src/judging/checks/priceTable.js';

describe.skipIf(!CHROMIUM)('report.html shows the run cost', () => {
  it('a priced run draws a cost card naming the price table date, with no page errors', async () => {
    const server = new FakeOpenAIServer((body) =>
      body.messages.some((m) => m.role === 'tool') ? { content: 'stockroom is an inventory service.' } : { tool_calls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] },
    );
    const baseURL = await server.start();
    const browser = await launchChromium();
    try {
      const out = tempDir();
      const run = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'gpt-4o-mini', '--base-url', baseURL, '--out', out, '-q']);
      expect(run.code, run.stderr).toBe(0);
      const page = await browser.newPage();
      const seen = watch(page);
      await page.goto(pathToFileURL(path.join(out, 'report.html')).href);
      const card = page.locator('.card', { hasText: 'cost (prices as of' });
      await expect.poll(() => card.count(), { timeout: 60_000 }).toBe(1);
      expect(await card.textContent()).toBe(`$0.00004200cost (prices as of ${DEFAULT_PRICE_TABLE.as_of})`);
      expect(seen.pageErrors).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
