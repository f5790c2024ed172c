import type { Policy } from '../../../src/schema/policy.js';
import type { Decision, SandboxKind } from '../decision.js';
import type { ShellWord, SimpleCommand } from '../shellSyntax.js';

/** What the policy knows while it judges one command. */
export interface InspectContext {
  policy: Policy;
  root: string;
  sandbox: SandboxKind;
  /** The folders the command may run in (absolute): a relative path names a file in each of them. */
  folders: readonly string[];
  /** Judges a path a program will read or write (inside the workspace, not a secret). */
  checkPath(p: string): Decision;
  /** Whether the command line names this path more than once (it may write it before the program reads it). */
  namedElsewhere?(p: string): boolean;
  /** Whether the command line names this path at all (a file the program finds by itself, such as a jq module, may be written first). */
  namedAnywhere?(p: string): boolean;
  /** Workspace symlinks leading out of it below a folder the command names (for programs that follow them). */
  outwardLinksUnder?(p: string): string[];
  /** The first secret at or below a folder the command names (for programs that read folders recursively), or null. */
  secretUnder?(p: string): string | null;
  /** Judges a command another program will run (xargs, find -exec). */
  checkCommand(cmd: SimpleCommand): Decision;
}

/** How one program's arguments read: what they add to the decision, and which of them are paths. */
export interface Inspection {
  decisions: Decision[];
  /** Matched against a rule's `subcommands` (git's `status`, npm's `test`). */
  subcommand?: string;
  /** The arguments that may name files; undefined: every argument may. */
  pathArgs?: ShellWord[];
  /** The folder the program runs in when it changes it (`git -C DIR`): relative paths are checked from there too. */
  cwd?: string;
}

/** Reads a program's arguments the way the program would; never runs anything. */
export type ProgramCheck = (cmd: SimpleCommand, ctx: InspectContext) => Inspection;
