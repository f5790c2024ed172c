import { BAD_INPUT_CODES, TracegateError, type RunErrorCode } from '../schema/runError.js';

/** The exit-code contract every command keeps (README, Commands). */
export const EXIT = {
  PASS: 0,
  GATE_FAILED: 1,
  BAD_INPUT: 2,
  COULD_NOT_RUN: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each exit code means, as every command's --help words it unless the command says more. */
const EXIT_MEANING: Readonly<Record<ExitCode, string>> = { 0: 'gate passed', 1: 'gate failed', 2: 'bad input', 3: 'could not run' };

/**
 * The `Exit codes: 0 gate passed, 1 gate failed, 2 bad input, 3 could not run.` line that ends a
 * command's --help: the codes the command can end with, each in the shared wording unless `words`
 * gives the command's own. The only place the line is written.
 */
export function exitCodesHelp(codes: readonly ExitCode[], words: Partial<Record<ExitCode, string>> = {}): string {
  return `Exit codes: ${codes.map((code) => `${code} ${words[code] ?? EXIT_MEANING[code]}`).join(', ')}.`;
}

/** The exit code a thrown error's code ends a command with. */
export function exitCodeFor(code: RunErrorCode): ExitCode {
  return BAD_INPUT_CODES.has(code) ? EXIT.BAD_INPUT : EXIT.COULD_NOT_RUN;
}

/** An error that ends a command with a given exit code and a message for the user. */
export class CliError extends TracegateError {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: typeof EXIT.BAD_INPUT | typeof EXIT.COULD_NOT_RUN) {
    super(exitCode === EXIT.BAD_INPUT ? 'BAD_INPUT' : 'COULD_NOT_RUN', message);
    this.exitCode = exitCode;
  }
}
