import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { gitShimDir } from '../git/gitEnv.js';
import { matchesGlob } from './workspacePaths.js';

/**
 * The bubblewrap view of the machine: the system folders read-only, the workspace writable, a
 * private /tmp, no network, and nothing of anyone's home (no /home, /root, /work, /var, /srv, /mnt).
 * Inside the workspace, files that match the policy's secret paths are masked with an empty file,
 * and a few private system files (/etc/shadow, SSH host keys) are hidden: a program the policy
 * cannot read statically (a test suite, a Makefile) still cannot read a secret.
 */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const HIDDEN_SYSTEM_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd'];
const HIDDEN_SYSTEM_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];
const MAX_SCANNED = 20_000;

export function bwrapArgs(workspace: string, secretGlobs: readonly string[]): string[] {
  const ws = path.resolve(workspace);
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const file of HIDDEN_SYSTEM_FILES) if (existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  for (const dir of HIDDEN_SYSTEM_DIRS) if (existsSync(dir)) args.push('--tmpfs', dir);
  const shim = gitShimDir();
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', ws, ws, '--ro-bind', shim, shim);
  for (const secret of secretEntries(ws, secretGlobs)) {
    args.push(...(secret.dir ? ['--tmpfs', secret.path] : ['--ro-bind', '/dev/null', secret.path]));
  }
  // --cap-drop ALL: run as root (a CI container), bubblewrap would keep every capability, and a
  // test suite could unmount a secret's mask or remount /etc writable.
  args.push('--chdir', ws, '--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  return args;
}

/** Workspace entries that match a secret glob (bounded walk; .git is not descended). */
function secretEntries(root: string, globs: readonly string[]): Array<{ path: string; dir: boolean }> {
  if (globs.length === 0) return [];
  const found: Array<{ path: string; dir: boolean }> = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_SCANNED) {
    const dir = queue.pop()!;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      seen++;
      const full = path.join(dir, entry);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat || stat.isSymbolicLink()) continue;
      const rel = path.relative(root, full).split(path.sep).join('/');
      const secret = globs.some((g) => matchesGlob(rel, g) || matchesGlob(`${rel}/x`, g));
      if (secret && (stat.isFile() || stat.isDirectory())) found.push({ path: full, dir: stat.isDirectory() });
      else if (stat.isDirectory() && entry !== '.git') queue.push(full);
    }
  }
  return found;
}
