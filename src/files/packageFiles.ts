import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * tracegate's own shipped files (the default policy, the git shim, the report viewer's assets, the
 * writer thread), found from the package root: the folder of the first package.json named
 * `tracegate` above this module. The same lookup holds from the TypeScript sources, from dist/ and
 * from the single-file CLI bundle, which sit at different depths.
 */
function findPackageRoot(): { root: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tracegate') return { root: dir, version: pkg.version ?? '0.0.0' };
    } catch {
      // no package.json here: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('tracegate: its package.json was not found above its own files');
    dir = parent;
  }
}

const found = findPackageRoot();

/** The package root (where package.json is). */
export const PACKAGE_ROOT = found.root;

/** tracegate's own version, from its package.json. */
export const PACKAGE_VERSION = found.version;

/** A shipped file, by its path from the package root (`harness/policy/default-policy.json`). */
export function packageFile(...parts: string[]): string {
  return path.join(PACKAGE_ROOT, ...parts);
}
