import { Command, CommanderError } from 'commander';
import { TRACEGATE_VERSION } from '../version.js';
import { EXIT } from './exitCodes.js';
import type { Handle } from './lazyAction.js';
import { defineCompare, defineRun } from './runCommands.js';
import { defineBaseline, defineDiff, defineMerge, defineReplay, defineReport, defineValidate } from './storedCommands.js';
import { defineExport, defineImport, defineScore } from './traceCommands.js';

/**
 * Builds the CLI and runs it; resolves to the process exit code (0 pass, 1 gate, 2 input, 3 could
 * not run). What it loads up front is the command definitions only; each command's code is imported
 * when it runs (lazyAction.ts), so `--help` costs little more than starting Node.
 */
export async function main(argv: string[]): Promise<number> {
  // `tracegate … | head`: a reader that closes the pipe early is not a crash; the command still
  // finishes, writes its files and returns its exit code.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  let exitCode: number = EXIT.PASS;
  const handle: Handle = async (work) => {
    try {
      exitCode = await work();
    } catch (error) {
      const { toExit } = await import('./errors.js');
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
  defineRun(program, handle);
  defineValidate(program, handle);
  defineReplay(program, handle);
  defineDiff(program, handle);
  defineBaseline(program, handle);
  defineCompare(program, handle);
  defineReport(program, handle);
  defineMerge(program, handle);
  defineImport(program, handle);
  defineScore(program, handle);
  defineExport(program, handle);

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
