import { z } from 'zod';
import { runCommand } from '../sandbox/runCommand.js';
import { defineTool, fault, ok } from './types.js';

export const runShellTool = defineTool({
  name: 'run_shell',
  description:
    'Run a shell command (bash) in the workspace folder and return its combined output. Commands are checked against a permission policy; network access and paths outside the workspace are refused.',
  schema: z.strictObject({ command: z.string().min(1).describe('The command line to run') }),
  async execute(args, ctx) {
    const run = await runCommand(args.command, {
      workspace: ctx.workspace,
      timeoutMs: ctx.shellTimeoutMs,
      outputCap: ctx.outputCap,
      mode: ctx.sandboxMode,
      ...(ctx.secretPaths ? { secretPaths: ctx.secretPaths } : {}),
      ...(ctx.limits ? { limits: ctx.limits } : {}),
      signal: ctx.signal,
    });
    const output = run.truncated
      ? `${run.output}\n[output truncated: ${run.outputChars} characters, showing the first ${ctx.outputCap}]`
      : run.output;
    const common = { truncated: run.truncated, output_chars: run.outputChars, exit_code: run.exitCode };
    if (run.timedOut) {
      return {
        ...fault('COMMAND_TIMEOUT', `command did not finish within ${ctx.shellTimeoutMs} ms and was killed`, {
          result: output,
          suggestion: 'run a narrower command, or one that does not wait for input',
        }),
        ...common,
      };
    }
    if (run.exitCode !== 0) {
      return {
        ...fault('COMMAND_FAILED', `command exited with ${run.exitCode ?? run.signal}`, { result: output }),
        ...common,
      };
    }
    return ok(output, { ...common, ...(run.truncated ? { error_type: 'OUTPUT_TRUNCATED' as const } : {}) });
  },
});
