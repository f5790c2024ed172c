/** Playwright-style sharding as one pure function: shard `index` of `total` (1-based) takes every total-th item. */
export function selectShard<T>(items: readonly T[], index: number, total: number): T[] {
  if (!Number.isInteger(total) || total < 1 || !Number.isInteger(index) || index < 1 || index > total) {
    throw new RangeError(`shard ${index}/${total}: expected 1 <= index <= total`);
  }
  return items.filter((_, i) => i % total === index - 1);
}

export function parseShard(text: string): { index: number; total: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) throw new RangeError(`--shard ${text}: expected INDEX/TOTAL, for example 1/4`);
  const shard = { index: Number(match[1]), total: Number(match[2]) };
  selectShard([], shard.index, shard.total);
  return shard;
}
