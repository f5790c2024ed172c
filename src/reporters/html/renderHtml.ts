import type { RunReport } from '../../schema/report.js';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** First cut: a plain escaped table (issue 5 brings charts and the trace viewer). */
export async function renderHtml(report: RunReport, _outDir: string): Promise<string> {
  const rows = report.tasks
    .map((t) => `<tr><td>${escapeHtml(t.id)}</td><td>${t.status}</td><td>${t.failure_reason ?? ''}</td><td>${t.failure_layer ?? ''}</td></tr>`)
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>tracegate report</title></head><body><table>${rows}</table></body></html>`;
}
