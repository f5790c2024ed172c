import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { TracegateError } from '../schema/runError.js';
import { AGENT_ATTR } from '../schema/agentIo.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { parseAgentOutput } from './agentOutput.js';
import { runAgentProcess } from './agentProcess.js';
import { redactedTail } from './redactedTail.js';
import { openExternalTrial, type ExternalAgentOptions } from './externalTrial.js';
import { AGENT_RUN_ERROR } from '../schema/runErrorCodes.js';
import { trialEnvironment } from './trialEnvironment.js';
import { chooseRunSandbox, type SandboxRequest } from './harnessAdapter.js';
import type { Adapter, AdapterRunContext } from '../schema/adapter.js';
import { agentClockEnv, type AgentClock } from './agentClock.js';

export interface CommandAdapterOptions extends ExternalAgentOptions {
  argv: string[];
  /** Extra variable names passed through (--agent-env). */
  passEnv: string[];
  parentEnv: NodeJS.ProcessEnv;
  /** Values that must never reach the agent (the upstream key). */
  secrets: string[];
  /** --sandbox: `auto` runs the agent under bubblewrap when it works here, else as a plain process group. */
  sandbox?: SandboxRequest;
  /** --agent-clock: the agent runs under libfaketime with this clock. */
  agentClock?: AgentClock | null;
}

/** How much of the agent's stderr tail the root span keeps as evidence. */
export const STDERR_TAIL_CHARS = 4000;

export class AgentSpawnError extends TracegateError {
  constructor(message: string) {
    super(AGENT_RUN_ERROR.AGENT_SPAWN_FAILED, message);
  }
}

/** Any program as the system under test: agent-input/v1 on stdin, the answer on stdout. */
export function createCommandAdapter(options: CommandAdapterOptions): Adapter {
  const choice = chooseRunSandbox(options.sandbox ?? RUN_DEFAULTS.sandbox);
  return {
    name: 'command',
    model: options.model,
    policy: 'the agent’s own',
    sandbox: choice.mode === 'bwrap' ? 'bubblewrap pid namespace' : 'process group',
    sandboxReason: choice.reason,
    checkSandbox: choice.mode,
    async run(task: Task, ctx: AdapterRunContext): Promise<Trace> {
      const clockNow = options.agentClock ? Date.now() + options.agentClock.offsetMs() : null;
      const trial = await openExternalTrial(task, ctx, options, clockNow);
      try {
        const { input } = trial;
        const env = trialEnvironment(
          options.parentEnv,
          options.passEnv,
          {
            taskId: task.id,
            epoch: ctx.epoch,
            maxSteps: input.max_steps,
            workspace: ctx.workspace,
            traceFile: input.trace_file,
            traceId: input.trace_id,
            rootSpanId: trial.rootSpanId,
            baseUrl: input.openai_base_url,
            rootUrl: trial.channel.rootUrl,
            apiKey: input.openai_api_key,
            model: options.modelName,
            otel: trial.otlp.env,
            home: trial.home,
          },
          options.secrets,
        );
        if (options.agentClock?.lib) Object.assign(env, agentClockEnv(options.agentClock, options.agentClock.lib));
        const result = await runAgentProcess({
          argv: options.argv,
          cwd: ctx.workspace,
          env,
          stdin: JSON.stringify(input) + '\n',
          timeoutMs: trial.agentTimeoutMs,
          signal: ctx.signal,
          sandbox: choice.mode,
        });
        ctx.signal.throwIfAborted();
        if (result.spawnError) throw new AgentSpawnError(`could not start ${options.argv[0]}: ${result.spawnError}`);
        const outcome = result.timedOut ? 'timeout' : result.exitCode === 0 ? 'exited' : 'crash';
        // The trial adds its traffic, trace file and the spans the agent exported over OTLP.
        return await trial.finish({
          started: result.started,
          ended: result.ended,
          outcome,
          ending: {
            [AGENT_ATTR.exitCode]: result.exitCode,
            [AGENT_ATTR.signal]: result.signal,
            [AGENT_ATTR.stderrTail]: redactedTail(options.redactor, result.stderrTail, STDERR_TAIL_CHARS, result.stderrTruncated),
            [AGENT_ATTR.errorLine]: result.stderrErrorLine === null ? null : options.redactor.text(result.stderrErrorLine),
            [AGENT_ATTR.stdoutBytes]: result.stdoutBytes,
            [AGENT_ATTR.stdoutTruncated]: result.stdoutTruncated,
            ...(outcome === 'timeout' ? { [AGENT_ATTR.problem]: `killed after ${trial.agentTimeoutMs} ms` } : {}),
            ...(outcome === 'crash' ? { [AGENT_ATTR.problem]: result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}` } : {}),
          },
          output: parseAgentOutput(result.stdout, result.stdoutTruncated),
        });
      } finally {
        await trial.dispose();
      }
    },
  };
}
