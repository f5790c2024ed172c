import path from 'node:path';
import { isExampleFile } from '../exampleFile.js';
import { allow, ask, deny, type Decision } from '../decision.js';
import type { ShellWord } from '../shellSyntax.js';
import type { Inspection, ProgramCheck } from './types.js';
import { isLongPrefix, recursiveSecretReads } from './recursiveRead.js';

/** Global options that change nothing a repository could abuse. */
const SAFE_GLOBAL = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--no-lazy-fetch', '--no-advice', '--version', '--bare']);
/** Global options that take a path (checked like any path). */
const PATH_GLOBAL = new Set(['-C', '--git-dir', '--work-tree']);
/** Long options that re-enable what the harness switched off, or run another program. */
const REFUSED_LONG: ReadonlyArray<readonly [name: string, why: string]> = [
  ['--ext-diff', 'runs an external diff program'],
  ['--textconv', 'runs textconv filters'],
  ['--filters', 'runs the repository\'s filters'],
  ['--show-signature', 'runs the signature program'],
  ['--open-files-in-pager', 'opens a pager'],
  ['--upload-pack', 'runs a program on the other side'],
  ['--receive-pack', 'runs a program on the other side'],
  ['--exec', 'runs a program'],
  ['--exec-path', 'runs programs from another folder'],
];
/** Real options that happen to be prefixes of a refused one (`--text` is not `--textconv`). */
const EXACT_HARMLESS = new Set(['--text', '--filter']);
/** grep's short options that take a value: in a bundle, what follows one of them is its value. */
const GREP_VALUE_LETTERS = 'efABCmO';

/**
 * `-O[CMD]` opens files in a pager (grep) or names an order file (diff): refused. git's
 * parse-options bundles short flags, so for grep `-nOcmd` is `-n -O cmd` and the letter counts
 * anywhere in a bundle until a letter that takes a value (`-eO` searches for "O").
 */
function refusedShort(sub: string | null, arg: string): string | undefined {
  if (/^-x(=.*)?$/.test(arg)) return 'runs a program';
  if (arg.startsWith('-O')) return 'opens a pager or reads an order file';
  if (sub !== 'grep') return undefined;
  for (const letter of arg.slice(1)) {
    if (letter === 'O') return 'opens files in a pager';
    if (GREP_VALUE_LETTERS.includes(letter) || !/[A-Za-z0-9]/.test(letter)) return undefined;
  }
  return undefined;
}

/**
 * git's parse-options accepts any unambiguous prefix of a long option (`git grep --op=CMD` is
 * `--open-files-in-pager=CMD`), so a prefix of a refused option is refused too.
 */
function refusedOption(sub: string | null, arg: string): string | undefined {
  if (arg.startsWith('--')) {
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (name.length <= 2 || EXACT_HARMLESS.has(name)) return undefined;
    return REFUSED_LONG.find(([long]) => long.startsWith(name))?.[1];
  }
  return arg.startsWith('-') ? refusedShort(sub, arg) : undefined;
}

const LISTING: Record<string, RegExp> = {
  branch: /^(--list|-l|-a|--all|-r|--remotes|-v|-vv|--verbose|--show-current|--no-color|--color(=.*)?|--no-column|--column(=.*)?|--(no-)?contains(=.*)?|--(no-)?merged(=.*)?|--sort=.*|--format=.*|--points-at=.*|--omit-empty|-i|--ignore-case)$/,
  tag: /^(--list|-l|-n[0-9]*|--(no-)?contains(=.*)?|--(no-)?merged(=.*)?|--sort=.*|--format=.*|--points-at=.*|--no-column|--column(=.*)?|-i|--ignore-case)$/,
  remote: /^(-v|--verbose)$/,
  config: /^(--get|--get-all|--get-regexp|--list|-l|--name-only|--null|-z|--show-origin|--show-scope|--local|--type=.*|--bool|--int|--default=.*)$/,
};

/**
 * Reads a git command line: refuses the global options that reach around the harness's safe
 * configuration (`-c`, `--config-env`, `--exec-path`, `-p`) and the per-command options that turn
 * programs back on, and names the subcommand for the policy's rules. Listing forms of commands that
 * can also write are named with their listing flag: `branch --list`, `tag --list`, `stash list`.
 */
export const inspectGit: ProgramCheck = (cmd, ctx) => {
  const decisions: Decision[] = [];
  const pathArgs: ShellWord[] = [];
  const args = cmd.args;
  let cwd: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v === null) {
      decisions.push(ask('unprovable-argument', `git argument ${arg.text} has no fixed value`));
      return { decisions, pathArgs };
    }
    if (!v.startsWith('-')) break;
    const name = v.includes('=') ? v.slice(0, v.indexOf('=')) : v;
    if (name === '-c' || name === '--config-env') decisions.push(deny('git-config-override', `git ${name} sets configuration, which can name programs to run`));
    else if (name === '--exec-path' && v.includes('=')) decisions.push(deny('git-exec-path', 'git --exec-path= runs git programs from another folder'));
    else if (name === '-p' || name === '--paginate') decisions.push(deny('git-pager', 'git -p starts a pager'));
    else if (PATH_GLOBAL.has(name)) {
      if (v.includes('=')) pathArgs.push({ value: v.slice(v.indexOf('=') + 1), text: v, glob: false });
      else if (args[i + 1]) pathArgs.push(args[++i]!);
      // Paths after `-C DIR` are relative to DIR: each is checked from there as well.
      const dir = name === '-C' ? args[i]?.value : undefined;
      // `git -C s*b`: bash expands the glob, so the folder paths are read from is not the text.
      if (dir && args[i]?.glob) decisions.push(ask('unprovable-argument', `git -C ${dir}: a folder given by a glob`));
      if (dir) cwd = path.isAbsolute(dir) ? dir : path.join(cwd ?? '.', dir);
    } else if (name === '--namespace' || name === '--exec-path') {
      if (!v.includes('=') && name === '--namespace') i++;
    } else if (!SAFE_GLOBAL.has(name)) decisions.push(ask('git-option', `git option ${name} is not known to be harmless`));
  }
  const sub = args[i]?.value ?? null;
  const rest = args.slice(i + 1);
  for (const arg of rest) {
    const v = arg.value;
    if (v === null) continue;
    if (v === '--') break;
    const refused = refusedOption(sub, v);
    if (refused) decisions.push(deny('git-dangerous-option', `git ${sub ?? ''} ${v} ${refused}`));
  }
  // `HEAD:.env`, `:0:key.pem`: a file read from the repository's objects gets the path check too.
  for (const arg of rest) {
    const object = arg.value !== null && !arg.value.startsWith('-') ? /^(:[0-3]:|[^:]*:)(.+)$/.exec(arg.value) : null;
    // A revision with no slash names no file of the work tree: the word is an object, judged by its path.
    if (!object || object[1]!.includes('/')) pathArgs.push(arg);
    if (!object || object[2]!.startsWith('/')) continue;
    const file = object[2]!;
    const decided = ctx.checkPath(file);
    // `git show HEAD:.env.example` is judged like `cat .env.example`, by content: the content of that
    // blob, which the git shim judges when it runs (a template blob holding anything but placeholders
    // is refused there), not the work tree's file.
    if (decided.decision !== 'allow' && decided.rule === 'secret-path' && isExampleFile(file)) {
      decisions.push(allow('example-file', `${arg.value}: an example file's blob, shown only if it holds placeholders alone (git refuses any other)`, 'low'));
    } else decisions.push(decided);
  }
  // `git grep --no-index` / `--untracked` and `git diff --no-index` read the folders' files, not the repository's.
  const options = rest.map((a) => a.value ?? '').filter((v) => v.startsWith('--'));
  const outsideIndex = options.some((o) => isLongPrefix(o, '--no-index', 6) || (sub === 'grep' && isLongPrefix(o, '--untracked', 4)));
  if ((sub === 'grep' || sub === 'diff') && outsideIndex) {
    const operands = rest.map((a) => a.value ?? '').filter((v) => v !== '' && !v.startsWith('-'));
    const folders = [...operands, ...(sub === 'grep' ? ['.'] : [])].map((f) => (cwd !== undefined ? path.join(cwd, f) : f));
    decisions.push(...recursiveSecretReads(`git ${sub} --no-index`, folders, ctx));
  }
  const where = cwd !== undefined ? { cwd } : {};
  if (sub === null) return { decisions, pathArgs, subcommand: '', ...where };
  return { decisions, pathArgs, subcommand: subcommandKey(sub, rest), ...where } satisfies Inspection;
};

function subcommandKey(sub: string, rest: ShellWord[]): string {
  const values = rest.map((a) => a.value ?? '');
  const options = values.filter((v) => v.startsWith('-'));
  const operands = values.filter((v) => !v.startsWith('-'));
  switch (sub) {
    case 'branch':
    case 'tag': {
      const listing = options.every((o) => LISTING[sub]!.test(o));
      const explicit = options.some((o) => o === '--list' || o === '-l');
      return listing && (operands.length === 0 || explicit) ? `${sub} --list` : sub;
    }
    case 'remote':
      return operands.length === 0 && options.every((o) => LISTING['remote']!.test(o)) ? 'remote -v' : `remote ${operands[0] ?? ''}`.trim();
    case 'stash':
    case 'reflog':
    case 'worktree':
      return operands.length > 0 ? `${sub} ${operands[0]}` : sub === 'reflog' ? 'reflog show' : sub;
    case 'config':
      return options.length > 0 && options.every((o) => LISTING['config']!.test(o)) && operands.length <= 1 ? 'config --get' : sub;
    default:
      return sub;
  }
}
