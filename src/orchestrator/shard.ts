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

/**
 * Where CI systems say which parallel job this is. GitLab counts from 1; Buildkite and CircleCI
 * count from 0 (their docs: BUILDKITE_PARALLEL_JOB "starting from 0", CIRCLE_NODE_INDEX "between
 * 0 and CIRCLE_NODE_TOTAL - 1"). GitHub Actions has no such variable: pass the matrix value
 * explicitly (--shard ${{ matrix.shard }}/N or TRACEGATE_SHARD).
 */
const CI_SHARD_ENV = [
  { ci: 'GitLab CI', index: 'CI_NODE_INDEX', total: 'CI_NODE_TOTAL', base: 1 },
  { ci: 'Buildkite', index: 'BUILDKITE_PARALLEL_JOB', total: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0 },
  { ci: 'CircleCI', index: 'CIRCLE_NODE_INDEX', total: 'CIRCLE_NODE_TOTAL', base: 0 },
] as const;

/** `--shard auto`: the 1-based shard of the CI job this runs in, from the first CI whose variables are set. */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>>): { index: number; total: number; source: string } {
  for (const { ci, index, total, base } of CI_SHARD_ENV) {
    const i = env[index];
    const n = env[total];
    if (i === undefined || n === undefined || i === '' || n === '') continue;
    const shard = { index: Number(i) - base + 1, total: Number(n) };
    try {
      selectShard([], shard.index, shard.total);
    } catch {
      throw new RangeError(`--shard auto: ${index}=${i} ${total}=${n} (${ci}) is not a valid shard`);
    }
    return { ...shard, source: `${ci} ${index}/${total}` };
  }
  throw new RangeError(`--shard auto: none of ${CI_SHARD_ENV.map((c) => `${c.index}/${c.total}`).join(', ')} is set; pass --shard i/n`);
}
