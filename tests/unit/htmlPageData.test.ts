import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildCharts } from '../../src/reporters/html/charts.js';
import { DETAIL_CHUNK, pageData, type PageDetail } from '../../src/reporters/html/pageData.js';
import { makeReport } from '../helpers/reportBuilder.js';

const unpack = (block: string) => JSON.parse(gunzipSync(Buffer.from(block, 'base64')).toString('utf8')) as PageDetail[];

describe('report.html page data', () => {
  it('puts failures first, keeps every task once, and finds each detail by its row', () => {
    const count = DETAIL_CHUNK * 2 + 7;
    const report = makeReport(Array.from({ length: count }, (_, i) => ({ id: `t${String(i).padStart(5, '0')}`, trials: i % 9 === 0 ? 'f' : i % 13 === 0 ? 'e' : 'p', tags: [`g${i % 3}`] })));
    const page = pageData(report);
    expect(page.rows.map((r) => r[0]).sort()).toEqual(report.tasks.map((t) => t.id).sort());
    const statuses = page.rows.map((r) => r[1]);
    expect(statuses.indexOf('passed')).toBeGreaterThan(statuses.lastIndexOf('failed'));
    expect(statuses.indexOf('passed')).toBeGreaterThan(statuses.lastIndexOf('errored'));
    expect(page.detailBlocks).toHaveLength(3);
    const details = page.detailBlocks.flatMap(unpack);
    for (const row of page.rows) {
      const task = report.tasks.find((t) => t.id === row[0])!;
      expect(details[row[13]]!.trace_file).toBe(task.trace_file);
      expect(details[row[13]]!.evidence).toEqual(task.evidence);
    }
    expect(page.facets.tag).toEqual(['g0', 'g1', 'g2']);
    expect(page.facets.reason).toEqual(['FINAL_ANSWER_INCOMPLETE']);
    expect('tasks' in page.report).toBe(false);
  });

  it('aggregates the latency chart of a big run into bins instead of one point per task', () => {
    const count = 5000;
    const report = makeReport(Array.from({ length: count }, (_, i) => ({ id: `t${i}`, trials: i % 4 === 0 ? 'f' : 'p' })));
    report.tasks.forEach((t, i) => (t.duration_ms = 100 + (i % 97) * 13));
    const latency = buildCharts(report).find((c) => c.id === 'latency')!;
    const values = (latency.spec['data'] as { values: Array<{ tasks: number; status: string }> }).values;
    expect(values.length).toBeLessThanOrEqual(40 * 30 * 3);
    expect(values.reduce((s, v) => s + v.tasks, 0)).toBe(count);
    expect(values.filter((v) => v.status === 'failed').reduce((s, v) => s + v.tasks, 0)).toBe(count / 4);
    expect(latency.title).toMatch(/5,000 tasks in 40×30 bins/);

    const small = buildCharts(makeReport([{ id: 'a', trials: 'p' }, { id: 'b', trials: 'f' }])).find((c) => c.id === 'latency')!;
    expect((small.spec['data'] as { values: Array<{ id: string }> }).values.map((v) => v.id)).toEqual(['a', 'b']);
  });
});
