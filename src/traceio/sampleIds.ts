import { attr } from '../schema/traceVocabulary.js';
import type { ImportedFile } from './formats.js';

const rootText = (t: ImportedFile['traces'][number], key: string): string | null => {
  const v = t.spans[0]?.attributes[key];
  return typeof v === 'string' && v !== '' ? v : null;
};

/**
 * Inspect sample ids repeat across evals (every dataset has a sample 1). Within one import, a sample
 * id that traces of two different Inspect tasks share would join them as epochs of one task (and read
 * as flaky): those traces' task ids become `<task>/<sample id>`. Ids no other task shares stay bare,
 * so a suite written for one log keeps matching. Runs of the same task stay one task (its epochs).
 */
export function qualifySharedSampleIds(imported: ImportedFile[]): void {
  const tasksOf = new Map<string, Set<string>>();
  const inspect = imported.flatMap((i) => i.traces).filter((t) => rootText(t, 'inspect.sample_id') !== null && rootText(t, 'inspect.task') !== null && attr(t.spans[0]!, 'importFormat') === 'inspect');
  for (const t of inspect) {
    const tasks = tasksOf.get(t.task_id) ?? new Set<string>();
    tasks.add(rootText(t, 'inspect.task')!);
    tasksOf.set(t.task_id, tasks);
  }
  for (const t of inspect) if (tasksOf.get(t.task_id)!.size > 1) t.task_id = `${rootText(t, 'inspect.task')}/${t.task_id}`;
}
