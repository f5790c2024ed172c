import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { safeRegex } from '../../src/schema/safeRegex.js';

export type PathCheck =
  | { inside: true; absolute: string }
  | { inside: false; absolute: string | null; reason: string };

/** lstat that reports any failure as "no entry": `file.txt/x` fails with ENOTDIR, not ENOENT. */
function lstatQuiet(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

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
    if (lstatQuiet(existing)?.isSymbolicLink()) {
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

/**
 * The secret glob a workspace path matches, or null. A folder whose contents a glob names (`.aws`
 * for `.aws/**`, `.docker` for `.docker/config.json`) is a secret too: `cp -r .aws a` or `ls .ssh`
 * would reach its files under a name no glob matches.
 */
export function isSecretPath(root: string, absolute: string, secretGlobs: readonly string[]): string | null {
  const rel = path.relative(root, absolute).split(path.sep).join('/');
  if (rel === '') return null;
  return secretGlobs.find((g) => matchesGlob(rel, g) || (g.includes('/') && globHasPrefix(g, rel))) ?? null;
}

/** Whether an anchored glob (`a/b/**`) can only match below the folder `rel` (`a`, `a/b`). */
function globHasPrefix(glob: string, rel: string): boolean {
  const segments = glob.split('/');
  const dirs = rel.split('/');
  if (dirs.length >= segments.length) return false;
  return dirs.every((d, i) => segments[i] !== '**' && matchesGlob(d, segments[i]!) && !segments[i]!.includes('**'));
}

/** How many entries `secretUnder` reads before it gives up (and reports the folder as holding one). */
const MAX_SECRET_WALK = 20_000;

/** What a walk's visitor says of an entry: enter it (a folder), pass it by, or end the walk. */
export type WalkStep = 'descend' | 'skip' | 'stop';

/**
 * A bounded walk of the folders below `start`: `visit` sees each entry and says what to do with it;
 * a symbolic link or .git is never entered. Returns the folder at which more than `maxEntries`
 * entries had been read, or null: a walk cut short is the caller's to fail closed on.
 */
export function walkBounded(start: string, maxEntries: number, visit: (full: string, entry: Dirent) => WalkStep): string | null {
  const queue = [start];
  let seen = 0;
  while (queue.length > 0) {
    const dir = queue.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > maxEntries) return dir;
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      const step = visit(full, entry);
      if (step === 'stop') return null;
      if (step === 'descend' && entry.isDirectory() && !entry.isSymbolicLink() && entry.name !== '.git') queue.push(full);
    }
  }
  return null;
}

/**
 * The first secret path at or below a workspace folder (workspace-relative), or null. Symlinks are
 * not followed and .git is not descended (as bubblewrap's masking). A walk cut short fails closed.
 */
export function secretUnder(root: string, absolute: string, secretGlobs: readonly string[], maxEntries = MAX_SECRET_WALK): string | null {
  if (secretGlobs.length === 0) return null;
  const own = isSecretPath(root, absolute, secretGlobs);
  if (own !== null) return path.relative(root, absolute);
  if (!lstatQuiet(absolute)?.isDirectory()) return null;
  let found = null as string | null;
  const cut = walkBounded(absolute, maxEntries, (full) => {
    if (isSecretPath(root, full, secretGlobs) === null) return 'descend';
    found = path.relative(root, full);
    return 'stop';
  });
  if (found !== null) return found;
  return cut === null ? null : `${path.relative(root, cut) || '.'} (more than ${maxEntries} entries, too many to check)`;
}
