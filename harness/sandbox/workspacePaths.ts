import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { safeRegex } from '../../src/schema/safeRegex.js';

export type PathCheck =
  | { inside: true; absolute: string }
  | { inside: false; absolute: string | null; reason: string };

function within(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves `p` against the workspace and proves it stays inside, by lexical path and by real path
 * (the longest existing prefix is resolved through symlinks, so a link that points out is caught
 * even when the final file does not exist yet). `root` must already be a real path.
 */
export function resolveInWorkspace(root: string, p: string): PathCheck {
  if (p.includes('\0')) return { inside: false, absolute: null, reason: 'path contains a NUL byte' };
  if (p.startsWith('~')) return { inside: false, absolute: null, reason: `${p} names a home directory` };
  const absolute = path.resolve(root, p);
  if (!within(root, absolute)) {
    return { inside: false, absolute, reason: `${p} resolves to ${absolute}, outside the workspace` };
  }
  let existing = absolute;
  const rest: string[] = [];
  while (!existsSync(existing) && existing !== root) {
    // A dangling symlink does not "exist", yet writing through it creates its target: judge the target.
    if (lstatSync(existing, { throwIfNoEntry: false })?.isSymbolicLink()) {
      const target = path.resolve(path.dirname(existing), readlinkSync(existing), ...rest);
      return within(root, target)
        ? { inside: false, absolute, reason: `${p} is a dangling symlink` }
        : { inside: false, absolute, reason: `${p} is a symlink to ${target}, outside the workspace` };
    }
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let real: string;
  try {
    real = path.join(realpathSync(existing), ...rest);
  } catch {
    // A dangling symlink: existsSync says no, yet it may point anywhere. Refuse it.
    return { inside: false, absolute, reason: `${p} could not be resolved` };
  }
  if (!within(root, real)) {
    return { inside: false, absolute, reason: `${p} leads through a symlink to ${real}, outside the workspace` };
  }
  return { inside: true, absolute: real };
}

/** Matches a workspace-relative path against simple globs: `*` within a segment, `**` across them. */
export function matchesGlob(relativePath: string, glob: string): boolean {
  const pattern = glob
    .split('/')
    .map((segment) =>
      segment === '**'
        ? '(?:.*)'
        : segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'),
    )
    .join('/')
    .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
  const anchored = glob.includes('/') ? `^${pattern}$` : `(?:^|/)${pattern}$`;
  // Globs come from the policy: run in the linear-time engine, so `*a*a*a*…` cannot stall on a long name.
  return safeRegex(anchored).test(relativePath);
}

export function isSecretPath(root: string, absolute: string, secretGlobs: readonly string[]): string | null {
  const rel = path.relative(root, absolute).split(path.sep).join('/');
  return secretGlobs.find((g) => matchesGlob(rel, g)) ?? null;
}
