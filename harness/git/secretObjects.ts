import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TracegateError } from '../../src/schema/runError.js';
import { gitIn, judgeSecretBlobs, type Git } from './secretBlobs.js';

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
  for (const gitDir of gitDirs) {
    const workTree = path.dirname(gitDir);
    const { git, env } = gitIn(workspace, workTree, secretGlobs);
    const secrets = judgeSecretBlobs(workTree, env, git).secret;
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
