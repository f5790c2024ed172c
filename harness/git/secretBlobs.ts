import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { holdsOnlyPlaceholders, isExampleFile, isPublicExampleFile, MAX_EXAMPLE_BYTES } from '../policy/exampleFile.js';
import { gitEnvironment, gitShimDir } from './gitEnv.js';

export type Git = (args: string[], input?: string | number) => SpawnSyncReturns<string>;

/** What a repository's secret paths held, judged by content. */
export interface JudgedBlobs {
  /** Blobs that were ever a secret path's content and are secrets: masked under bubblewrap, refused by the shim. */
  secret: Set<string>;
  /**
   * `<blob>\t<path>` for each template path (`.env.example`, from the top of the repository) and
   * each content it held, in history or in the work tree, that holds only placeholders.
   */
  publicTemplates: string[];
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** git in a repository's work tree with the sandbox's git environment (drivers off), outside the sandbox. */
export function gitIn(workspace: string, workTree: string, secretGlobs: readonly string[]): { git: Git; env: NodeJS.ProcessEnv } {
  const env = { ...gitEnvironment(workspace), PATH: '/usr/bin:/bin', TRACEGATE_SECRET_PATHS: secretGlobs.join('\n') };
  const git: Git = (args, input) =>
    spawnSync('git', args, { cwd: workTree, env, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024, ...(typeof input === 'number' ? { stdio: [input, 'pipe', 'pipe'] } : { input }) });
  return { git, env };
}

/**
 * The blobs that were ever a secret path's content (index, history, reflogs, stashes), by the shim's
 * own listing (lib/secretBlobs.sh), each judged: a blob only ever at template paths that holds only
 * placeholders is no secret (harness/policy/exampleFile.ts decides). The work tree's templates are
 * judged too, so that the shim can tell a public `.env.example` edit from a real key written into one.
 */
export function judgeSecretBlobs(workTree: string, env: NodeJS.ProcessEnv, git: Git): JudgedBlobs {
  const listed = spawnSync('sh', [path.join(gitShimDir(), 'lib', 'secretBlobs.sh')], { cwd: workTree, env, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  const paths = new Map<string, string[]>();
  for (const line of listed.stdout.split('\n')) {
    const [id = '', file = ''] = line.split('\t');
    if (OBJECT_ID.test(id)) paths.set(id, [...(paths.get(id) ?? []), file]);
  }
  const secret = new Set<string>();
  const publicTemplates: string[] = [];
  const templatePaths = new Set<string>();
  const onlyTemplates = [...paths].filter(([, files]) => files.every(isExampleFile)).map(([id]) => id);
  judgeBlobs(onlyTemplates, workTree, env);
  for (const [id, files] of paths) {
    const templates = files.filter(isExampleFile);
    templates.forEach((file) => templatePaths.add(file));
    if (templates.length < files.length || VERDICTS.get(id) !== true) secret.add(id);
    else publicTemplates.push(...templates.map((file) => `${id}\t${file}`));
  }
  const inWorkTree = [...templatePaths].filter((file) => existsSync(path.join(workTree, file)) && isPublicExampleFile(path.join(workTree, file)));
  if (inWorkTree.length > 0) {
    // The same id the shim computes for the file (`hash-object --no-filters`: no driver runs).
    const hashed = git(['hash-object', '--no-filters', '--stdin-paths'], `${inWorkTree.join('\n')}\n`).stdout.split('\n');
    inWorkTree.forEach((file, i) => {
      if (OBJECT_ID.test(hashed[i] ?? '')) publicTemplates.push(`${hashed[i]}\t${file}`);
    });
  }
  return { secret, publicTemplates };
}

/** Whether a blob holds only placeholders, by its id: a blob's content never changes, so neither does the verdict. */
const VERDICTS = new Map<string, boolean>();
const MAX_VERDICTS = 100_000;

/** Judges the blobs not judged before, read in one `git cat-file --batch` (a larger blob is a secret unread). */
function judgeBlobs(ids: readonly string[], workTree: string, env: NodeJS.ProcessEnv): void {
  const unknown = ids.filter((id) => !VERDICTS.has(id));
  if (unknown.length === 0) return;
  if (VERDICTS.size + unknown.length > MAX_VERDICTS) VERDICTS.clear();
  const run = (format: string, input: string) => spawnSync('git', [`cat-file`, `--batch${format}`], { cwd: workTree, env, input, timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  const sizes = run('-check=%(objectname) %(objectsize)', `${unknown.join('\n')}\n`).stdout.toString('utf8').split('\n');
  const small = unknown.filter((id, i) => {
    const size = Number(sizes[i]?.split(' ')[1]);
    return sizes[i]?.startsWith(`${id} `) === true && size <= MAX_EXAMPLE_BYTES;
  });
  unknown.forEach((id) => VERDICTS.set(id, false));
  if (small.length === 0) return;
  // Each: "<id> blob <size>\n", the content, "\n".
  const out = run('', `${small.join('\n')}\n`).stdout;
  let at = 0;
  for (const id of small) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const [name, type, size] = out.subarray(at, eol).toString('utf8').split(' ');
    const length = Number(size);
    if (name !== id || !Number.isInteger(length)) break;
    const content = out.subarray(eol + 1, eol + 1 + length);
    VERDICTS.set(id, type === 'blob' && holdsOnlyPlaceholders(content.toString('utf8')));
    at = eol + 1 + length + 1;
  }
}

/**
 * The git shim's view of the templates the workspace's repository tracks: TRACEGATE_PUBLIC_TEMPLATES
 * holds the `<blob>\t<path>` pairs judged public, and the shim withholds a tracked secret path unless
 * every content it held, and its work-tree file, is among them. A repository not judged here (one
 * nested deeper) has its templates withheld: the shim fails closed.
 */
export function publicTemplatesEnv(workspace: string, secretGlobs: readonly string[]): Record<string, string> {
  if (secretGlobs.length === 0 || !existsSync(path.join(workspace, '.git'))) return {};
  const { git, env } = gitIn(workspace, workspace, secretGlobs);
  const { publicTemplates } = judgeSecretBlobs(workspace, env, git);
  return publicTemplates.length > 0 ? { TRACEGATE_PUBLIC_TEMPLATES: publicTemplates.join('\n') } : {};
}
