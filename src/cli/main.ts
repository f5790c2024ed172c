import { Command, CommanderError } from 'commander';
import { TRACEGATE_VERSION } from '../version.js';
import { registerBaseline, registerCompare, registerDiff, registerReplay, registerReport, registerValidate } from './commands.js';
import { toExit } from './errors.js';
import { EXIT } from './exitCodes.js';
import { registerMerge } from './mergeCommand.js';
import { registerRun } from './runAction.js';
import { registerExport, registerImport, registerScore } from './traceCommands.js';

/** Builds the CLI and runs it; resolves to the process exit code (0 pass, 1 gate, 2 input, 3 could not run). */
export async function main(argv: string[]): Promise<number> {
  // `tracegate … | head`: a reader that closes the pipe early is not a crash; the command still
  // finishes, writes its files and returns its exit code.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  let exitCode: number = EXIT.PASS;
  const handle = async (work: () => Promise<number>) => {
    try {
      exitCode = await work();
    } catch (error) {
      const { code, message } = toExit(error);
      process.stderr.write(`error: ${message}\n`);
      exitCode = code;
    }
  };

  const program = new Command()
    .name('tracegate')
    .description('Regression suites for LLM tool-calling agents, judged from their traces.')
    .version(TRACEGATE_VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerRun(program, handle);
  registerValidate(program, handle);
  registerReplay(program, handle);
  registerDiff(program, handle);
  registerBaseline(program, handle);
  registerCompare(program, handle);
  registerReport(program, handle);
  registerMerge(program, handle);
  registerImport(program, handle);
  registerScore(program, handle);
  registerExport(program, handle);

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; a usage error is bad input.
      return error.exitCode === 0 ? EXIT.PASS : EXIT.BAD_INPUT;
    }
    throw error;
  }
  return exitCode;
}
