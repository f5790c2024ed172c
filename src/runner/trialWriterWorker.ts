/**
 * The thread that stores finished trials (see trialWriter.ts): for each, its trace file, written
 * atomically, then its journal line, in the order they came; then it packs the traces report.html
 * is to embed (compressing them is a main-thread cost the run need not pay). It answers each batch
 * with the count stored and the packed traces, or with the first error, after which it stores
 * nothing more.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { packJson } from '../files/packJson.js';
import { writeFileAtomicSync } from '../files/atomicWrite.js';
import type { StoredTrial, WriterReply } from './trialWriter.js';

const port = parentPort!;
const journal = openSync((workerData as { journalFile: string }).journalFile, 'a');
let failed = false;

function store(item: StoredTrial): void {
  if (item.traceFile !== null && item.trace !== null) writeFileAtomicSync(item.traceFile, item.trace);
  const line = Buffer.from(item.line);
  for (let at = 0; at < line.length; ) at += writeSync(journal, line, at);
}

port.on('message', (batch: StoredTrial[] | 'close') => {
  if (batch === 'close') {
    closeSync(journal);
    port.close();
    return;
  }
  if (failed) return;
  try {
    for (const item of batch) store(item);
  } catch (error) {
    failed = true;
    const { message, code } = error as NodeJS.ErrnoException;
    port.postMessage({ error: message, code } satisfies WriterReply);
    return;
  }
  const packed: Array<[string, string]> = [];
  for (const { viewer } of batch) {
    if (!viewer) continue;
    try {
      packed.push([viewer.key, packJson(viewer.json)]);
    } catch {
      // The page then packs the trace from its file, as it does for any trace not packed here.
    }
  }
  port.postMessage({ stored: batch.length, packed } satisfies WriterReply);
});
