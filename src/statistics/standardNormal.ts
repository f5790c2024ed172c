import { createRequire } from 'node:module';
import type jstatModule from 'jstat';

// jstat (135 KB of code) loads with the first quantile, from node_modules: a run without a
// baseline computes none, and every start of the CLI would otherwise pay for it.
const require = createRequire(import.meta.url);
let jStat: (typeof jstatModule)['jStat'] | null = null;
const normal = () => (jStat ??= (require('jstat') as typeof jstatModule).jStat).normal;

/** The standard normal distribution (jstat's): its distribution function and its quantile. */
export const standardNormal = {
  cdf: (x: number): number => normal().cdf(x, 0, 1),
  inv: (p: number): number => normal().inv(p, 0, 1),
};
