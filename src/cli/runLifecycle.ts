import type { Adapter } from '../schema/adapter.js';

/**
 * The one owner of a run's setup and teardown: builds the adapters in order, runs `body` with them,
 * and closes every adapter that was built in one `finally` — whether a later build, a check before
 * the first trial, a trial or the report failed. No caller closes an adapter itself.
 */
export async function withAdapters<T>(builds: ReadonlyArray<() => Promise<Adapter>>, body: (adapters: Adapter[]) => Promise<T>): Promise<T> {
  const adapters: Adapter[] = [];
  try {
    for (const build of builds) adapters.push(await build());
    return await body(adapters);
  } finally {
    await Promise.all(adapters.map((adapter) => adapter.close?.()));
  }
}
