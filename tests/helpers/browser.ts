import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); the browser tests never download one. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? null;

export function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium is not installed');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface PageWatch {
  consoleErrors: string[];
  pageErrors: string[];
  requests: string[];
  dialogs: string[];
}

/** Records console errors, uncaught errors, every request and every dialog a page makes. */
export function watch(page: Page): PageWatch {
  const seen: PageWatch = { consoleErrors: [], pageErrors: [], requests: [], dialogs: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') seen.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => seen.pageErrors.push(e.message));
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  return seen;
}
