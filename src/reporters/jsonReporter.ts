import path from 'node:path';
import type { StreamedReport } from '../report/taskRows.js';
import { writeFileAtomic } from '../files/atomicWrite.js';
import type { Reporter } from './reporter.js';

const MARKER = '"__tracegate_report_tasks__"';

/**
 * report.json as a stream of chunks: byte for byte what `JSON.stringify(report, null, 2)` gives,
 * without ever holding a 100k-task report as one string.
 */
export function* reportJsonChunks(report: StreamedReport): Generator<string> {
  const frame = JSON.stringify({ ...report, tasks: MARKER.slice(1, -1) }, null, 2);
  const at = frame.indexOf(MARKER);
  yield frame.slice(0, at);
  if (report.tasks.length === 0) yield '[]';
  else {
    yield '[\n';
    let i = 0;
    for (const task of report.tasks) {
      yield '    ' + JSON.stringify(task, null, 2).replace(/\n/g, '\n    ') + (++i < report.tasks.length ? ',\n' : '\n');
    }
    yield '  ]';
  }
  yield frame.slice(at + MARKER.length) + '\n';
}

/** Writes `<outDir>/report.json` (durably: it is what a baseline, merge and --resume read). */
export async function writeReportJson(report: StreamedReport, outDir: string): Promise<string> {
  const file = path.join(outDir, 'report.json');
  await writeFileAtomic(file, reportJsonChunks(report), { durable: true });
  return file;
}

export const jsonReporter: Reporter = { name: 'json', onRunEnd: writeReportJson };
