import { describe, expect, it } from 'vitest';
import { selectShard, shardFromEnv } from '../../src/orchestrator/shard.js';

describe('shards from CI variables', () => {
  it('maps each CI to a 1-based shard', () => {
    expect(shardFromEnv({ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '3' })).toMatchObject({ index: 1, total: 3 });
    expect(shardFromEnv({ BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '3' })).toMatchObject({ index: 1, total: 3 });
    expect(shardFromEnv({ CIRCLE_NODE_INDEX: '2', CIRCLE_NODE_TOTAL: '3' })).toMatchObject({ index: 3, total: 3 });
  });

  it('refuses values out of range and the absence of any', () => {
    expect(() => shardFromEnv({ CIRCLE_NODE_INDEX: '3', CIRCLE_NODE_TOTAL: '3' })).toThrow(/CIRCLE_NODE_INDEX=3 CIRCLE_NODE_TOTAL=3 \(CircleCI\) is not a valid shard/);
    expect(() => shardFromEnv({ CI_NODE_INDEX: '0', CI_NODE_TOTAL: '2' })).toThrow(/GitLab/);
    expect(() => shardFromEnv({})).toThrow(/none of/);
  });

  it('the shards of a list are disjoint and cover it', () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    const parts = [1, 2, 3, 4].map((i) => selectShard(items, i, 4));
    expect(parts.flat().sort((a, b) => a - b)).toEqual(items);
  });
});
