/** The exit-code contract of DESIGN.md. */
export const EXIT = {
  PASS: 0,
  GATE_FAILED: 1,
  BAD_INPUT: 2,
  COULD_NOT_RUN: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends a command with a given exit code and a message for the user. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
