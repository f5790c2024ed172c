import { readFileSync } from 'node:fs';

/** tracegate's own version, from package.json (read once). */
export const TRACEGATE_VERSION: string = (() => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tracegate' && pkg.version) return pkg.version;
    } catch {
      // try the next location (source and dist sit at different depths)
    }
  }
  return '0.0.0';
})();
