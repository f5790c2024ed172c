import { TracegateError } from '../../src/schema/runError.js';
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitShimDir } from '../git/gitEnv.js';
import { secretObjectMasks } from '../git/secretObjects.js';
import { isPublicExampleFile } from '../policy/exampleFile.js';
import { matchesGlob, walkBounded } from './workspacePaths.js';

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
const MAX_SCANNED = 100_000;

/** The workspace has more entries than the secret scan reads: bubblewrap cannot promise every secret is masked. */
export class SecretScanError extends TracegateError {
  constructor(message: string) {
    super('SANDBOX_UNAVAILABLE', message);
  }
}

export function bwrapArgs(workspace: string, secretGlobs: readonly string[], maxScanned = MAX_SCANNED): string[] {
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
  const { secrets, gitDirs } = secretEntries(ws, secretGlobs, maxScanned);
  for (const secret of secrets) {
    args.push(...(secret.dir ? ['--tmpfs', secret.path] : ['--ro-bind', '/dev/null', secret.path]));
  }
  for (const mask of secretObjectMasks(ws, gitDirs, secretGlobs)) args.push('--ro-bind', mask.source, mask.target);
  // --cap-drop ALL: run as root (a CI container), bubblewrap would keep every capability, and a
  // test suite could unmount a secret's mask or remount /etc writable.
  args.push('--chdir', ws, '--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  return args;
}

function linkTarget(root: string, link: string): { path: string; dir: boolean } | undefined {
  try {
    const real = realpathSync(link);
    const rel = path.relative(root, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    const stat = statSync(real);
    return stat.isFile() || stat.isDirectory() ? { path: real, dir: stat.isDirectory() } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Workspace entries that match a secret glob (.git is not descended), and the repositories' .git
 * folders (whose objects hold the secrets' history). The walk is bounded, and a walk cut short
 * fails closed: a workspace padded with files must not leave a secret unmasked.
 */
function secretEntries(root: string, globs: readonly string[], maxScanned: number): { secrets: Array<{ path: string; dir: boolean }>; gitDirs: string[] } {
  const found: Array<{ path: string; dir: boolean }> = [];
  const gitDirs: string[] = [];
  if (globs.length === 0) return { secrets: found, gitDirs };
  const cut = walkBounded(root, maxScanned, (full, entry) => {
    if (entry.name === '.git' && entry.isDirectory()) gitDirs.push(full);
    const rel = path.relative(root, full).split(path.sep).join('/');
    const secret = globs.some((g) => matchesGlob(rel, g) || matchesGlob(`${rel}/x`, g));
    if (entry.isSymbolicLink()) {
      // A secret-named link (`.env -> config/local.env`) masks the file it leads to, when that is in the workspace.
      const target = secret ? linkTarget(root, full) : undefined;
      if (target) found.push(target);
      return 'skip';
    }
    if (secret && entry.isFile() && isPublicExampleFile(full)) return 'skip';
    if (secret && (entry.isFile() || entry.isDirectory())) {
      found.push({ path: full, dir: entry.isDirectory() });
      return 'skip';
    }
    return 'descend';
  });
  if (cut !== null) throw new SecretScanError(`the workspace has more than ${maxScanned} entries, too many to mask every secret path under bubblewrap`);
  return { secrets: found, gitDirs };
}
