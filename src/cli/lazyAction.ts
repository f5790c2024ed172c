/** Runs a command's work and turns what it returns or throws into the process's exit code (main.ts). */
export type Handle = (work: () => Promise<number>) => Promise<void>;

/**
 * A command's action whose code is imported when the command runs, not when the CLI starts: the
 * definitions (commander, the flags, the help text) are all that `--help` or a usage error loads.
 * The import path must be a literal for the bundler to give each action a chunk of its own.
 */
export function lazyAction<A extends unknown[]>(handle: Handle, load: () => Promise<(...args: A) => Promise<number>>): (...args: A) => Promise<void> {
  return (...args) => handle(async () => (await load())(...args));
}
