import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TracegateError } from '../../src/schema/runError.js';
import { holdsOnlyPlaceholders, isExampleFile, MAX_EXAMPLE_BYTES } from '../policy/exampleFile.js';
import { gitEnvironment, gitShimDir } from './gitEnv.js';

/** A file bubblewrap binds read-only over another: `source` is what commands see at `target`. */
export interface ObjectMask {
  target: string;
  source: string;
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** Replacement packs, built once per pack and secret set (a pack file never changes). */
const PACK_CACHE = path.join(tmpdir(), 'tracegate-masked-packs');

/**
 * Bubblewrap masks a secret path's file in the work tree, but the repository's object store still
 * holds every version of it: `python3 -c` with zlib reads a loose object, `grep -a` a pack. For each
 * repository in the workspace, the blobs that were ever a secret path's content are masked: a loose
 * object with an empty file, a pack holding one with a copy of the pack without it. git keeps
 * working through the shim, which withholds the secret paths, so it never needs those blobs.
 */
export function secretObjectMasks(workspace: string, gitDirs: readonly string[], secretGlobs: readonly string[]): ObjectMask[] {
  if (secretGlobs.length === 0) return [];
  const masks: ObjectMask[] = [];
  const env = { ...gitEnvironment(workspace), PATH: '/usr/bin:/bin', TRACEGATE_SECRET_PATHS: secretGlobs.join('\n') };
  for (const gitDir of gitDirs) {
    const workTree = path.dirname(gitDir);
    const git = (args: string[], input?: string | number) =>
      spawnSync('git', args, { cwd: workTree, env, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024, ...(typeof input === 'number' ? { stdio: [input, 'pipe', 'pipe'] } : { input }) });
    const secrets = secretBlobs(workTree, env, git);
    if (secrets.size === 0) continue;
    const objects = path.join(gitDir, 'objects');
    for (const id of secrets) {
      const loose = path.join(objects, id.slice(0, 2), id.slice(2));
      if (existsSync(loose)) masks.push({ target: loose, source: '/dev/null' });
    }
    masks.push(...packMasks(path.join(objects, 'pack'), secrets, git));
  }
  return masks;
}

/**
 * The blobs that were ever a secret path's content, by the shim's own listing. A blob that was only
 * ever at template paths (`.env.example`) and holds only placeholders is no secret.
 */
function secretBlobs(workTree: string, env: NodeJS.ProcessEnv, git: Git): Set<string> {
  const listed = spawnSync('sh', [path.join(gitShimDir(), 'lib', 'secretBlobs.sh')], { cwd: workTree, env, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  const paths = new Map<string, string[]>();
  for (const line of listed.stdout.split('\n')) {
    const [id = '', file = ''] = line.split('\t');
    if (OBJECT_ID.test(id)) paths.set(id, [...(paths.get(id) ?? []), file]);
  }
  const secrets = new Set<string>();
  for (const [id, files] of paths) {
    if (!files.every(isExampleFile) || !publicBlob(id, git)) secrets.add(id);
  }
  return secrets;
}

function publicBlob(id: string, git: Git): boolean {
  const size = Number(git(['cat-file', '-s', id]).stdout.trim());
  if (!(size <= MAX_EXAMPLE_BYTES)) return false;
  const blob = git(['cat-file', 'blob', id]);
  return blob.status === 0 && holdsOnlyPlaceholders(blob.stdout);
}

type Git = (args: string[], input?: string | number) => SpawnSyncReturns<string>;

function packMasks(packDir: string, secrets: ReadonlySet<string>, git: Git): ObjectMask[] {
  const masks: ObjectMask[] = [];
  let entries: string[];
  try {
    entries = readdirSync(packDir);
  } catch {
    return masks;
  }
  let rewrote = false;
  for (const idx of entries.filter((e) => /^pack-[0-9a-f]+\.idx$/.test(e))) {
    const base = idx.slice(0, -'.idx'.length);
    const fd = openSync(path.join(packDir, idx), 'r');
    const shown = git(['show-index'], fd);
    closeSync(fd);
    const ids = shown.stdout.split('\n').map((line) => line.split(' ')[1] ?? '').filter((id) => OBJECT_ID.test(id));
    const held = ids.filter((id) => secrets.has(id));
    if (held.length === 0) continue;
    rewrote = true;
    const clean = cleanPack(base, ids.filter((id) => !secrets.has(id)), held, git);
    masks.push({ target: path.join(packDir, `${base}.pack`), source: `${clean}.pack` }, { target: path.join(packDir, `${base}.idx`), source: `${clean}.idx` });
    // Indexes of the old pack's layout would point into the new one at the wrong offsets.
    for (const stale of [`${base}.rev`, `${base}.bitmap`]) if (entries.includes(stale)) masks.push({ target: path.join(packDir, stale), source: '/dev/null' });
  }
  if (rewrote && entries.includes('multi-pack-index')) masks.push({ target: path.join(packDir, 'multi-pack-index'), source: '/dev/null' });
  return masks;
}

/** The path (without extension) of a pack holding `keep`, built once into the cache. */
function cleanPack(base: string, keep: readonly string[], dropped: readonly string[], git: Git): string {
  const key = createHash('sha256').update(`${base}\n${[...dropped].sort().join('\n')}`).digest('hex').slice(0, 32);
  const dir = path.join(PACK_CACHE, key);
  const done = path.join(dir, 'pack');
  if (existsSync(`${done}.idx`)) return done;
  const building = `${dir}.tmp-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true, mode: 0o700 });
  const packed = git(['pack-objects', '-q', path.join(building, 'pack')], `${keep.join('\n')}\n`);
  const hash = packed.stdout.trim();
  if (packed.status !== 0 || !OBJECT_ID.test(hash)) throw new TracegateError('SANDBOX_UNAVAILABLE', `git pack-objects could not rewrite ${base} without the secret blobs, so bubblewrap cannot mask them: ${packed.stderr}`);
  for (const ext of ['pack', 'idx']) renameSync(path.join(building, `pack-${hash}.${ext}`), path.join(building, `pack.${ext}`));
  try {
    renameSync(building, dir);
  } catch {
    // Another sandbox built the same pack first: theirs is identical.
    rmSync(building, { recursive: true, force: true });
  }
  return done;
}
