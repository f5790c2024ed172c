import { deny, type Decision } from '../decision.js';
import type { InspectContext } from './types.js';

/**
 * A program that reads every file below a folder (`grep -r`, `diff -r`, `git grep --no-index`,
 * `cp -r`) reads the secrets there too, though the command names none. Under bubblewrap they are
 * masked with empty files; under the process group nothing would stop it, so a folder that holds a
 * secret is refused there.
 */
export function recursiveSecretReads(what: string, folders: readonly string[], ctx: InspectContext): Decision[] {
  if (ctx.sandbox !== 'process' || !ctx.secretUnder) return [];
  const out: Decision[] = [];
  for (const folder of folders) {
    const secret = ctx.secretUnder(folder);
    if (secret !== null) {
      out.push(deny('recursive-secret', `${what} reads every file under ${folder}, ${secret} among them, a secret (name the files or folders without one, or run under bubblewrap, which masks secrets)`, 'PERMISSION_DENIED'));
    }
  }
  return out;
}

/** `--rec` is `--recursive`: GNU getopt_long takes any unambiguous prefix of a long option. */
export function isLongPrefix(arg: string, long: string, minLength: number): boolean {
  const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  return name.length >= minLength && long.startsWith(name);
}
