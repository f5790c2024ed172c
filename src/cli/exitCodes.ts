/**
 * The exit-code contract every command keeps (README, Commands). It loads nothing else: every
 * command's --help prints it (errors.ts has the errors that end a command with one).
 */
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
