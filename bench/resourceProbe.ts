/**
 * Preloaded into a measured child (`node --import dist/bench/resourceProbe.js ...`): at exit it
 * writes the process's own CPU time and peak RSS to the file named by TRACEGATE_BENCH_PROBE.
 */
import { writeFileSync } from 'node:fs';

const target = process.env['TRACEGATE_BENCH_PROBE'];
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000, max_rss_kb: usage.maxRSS }));
  });
}
