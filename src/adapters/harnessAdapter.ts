import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import path from 'node:path';
import {
  CassetteModel,
  ModelError,
  NoModel,
  DEFAULT_SETTINGS,
  OpenAIModel,
  RecordingModel,
  defaultApprover,
  defaultPolicyPath,
  chooseSandbox,
  SANDBOX_REQUESTS,
  loadPolicy,
  SandboxUnavailableError,
  runAgent,
  runCommand,
  runPolicyTask,
  type Approver,
  type HarnessSettings,
  type Model,
  type SandboxChoice,
  type SandboxMode,
  type SandboxRequest,
} from '../../harness/index.js';
import { EndpointLimiter } from '../provider/endpointLimiter.js';
import type { Redactor } from '../schema/redact.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { AdapterConfigError, type Adapter, type AdapterRunContext } from '../schema/adapter.js';

/**
 * The run's sandbox for a --sandbox request (the harness's run_shell, an --agent-cmd agent):
 * bubblewrap where asked for and unusable is bad input, never a silent fallback.
 */
export function chooseRunSandbox(requested: SandboxRequest): SandboxChoice {
  try {
    return chooseSandbox(requested);
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new AdapterConfigError(error.message);
    throw error;
  }
}

export interface HarnessAdapterOptions {
  /** none: policy tasks only, no model at all. */
  provider: 'openai' | 'cassette' | 'none';
  /** openai: the model name; cassette: ignored (the cassettes name theirs). */
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  cassettes?: string | undefined;
  record?: string | undefined;
  policyFile?: string | undefined;
  settings?: Partial<HarnessSettings>;
  /** Which sandbox run_shell uses; `auto` (the default) picks bubblewrap when it works here. */
  sandbox?: SandboxRequest;
  approver?: Approver;
  redactor: Redactor;
  /** The run's -j: the ceiling of requests in flight to the model endpoint. */
  concurrency?: number;
}

export { AdapterConfigError };
/** What the rest of src/ may know of the harness: its settings type and its model error. */
export { ModelError, SANDBOX_REQUESTS, type HarnessSettings, type SandboxRequest };
/** The harness's sandboxed command runner: outcome and custom checks run under the trial's sandbox kind. */
export { runCommand as runSandboxedCommand, type SandboxMode };
export type { McpServerSpec } from '../schema/mcpServer.js';

function buildModel(options: HarnessAdapterOptions): Model {
  if (options.provider === 'none') return new NoModel();
  if (options.provider === 'cassette') {
    // resolveSystem has already said this in the CLI's words; these guard other callers.
    if (!options.cassettes) throw new AdapterConfigError('the cassette provider needs a cassette folder');
    if (options.record) throw new AdapterConfigError('recording needs a live provider, not cassettes');
    return new CassetteModel(options.cassettes, options.redactor);
  }
  const live = new OpenAIModel({
    model: options.model,
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    limiter: new EndpointLimiter({ max: options.concurrency ?? RUN_DEFAULTS.concurrency }),
  });
  return options.record ? new RecordingModel(live, options.record, options.redactor) : live;
}

/** The reference harness as an adapter: agent tasks through the loop, policy tasks straight to the tool layer. */
export function createHarnessAdapter(options: HarnessAdapterOptions): Adapter {
  const model = buildModel(options);
  const policyFile = options.policyFile ?? defaultPolicyPath();
  const policy = loadPolicy(policyFile);
  const choice = chooseRunSandbox(options.sandbox ?? options.settings?.sandboxMode ?? RUN_DEFAULTS.sandbox);
  const settings: HarnessSettings = { ...DEFAULT_SETTINGS, ...options.settings, sandboxMode: choice.mode, sandboxReason: choice.reason };
  const deps = {
    model,
    modelName: options.provider === 'openai' ? options.model : model.info.model,
    policy,
    approver: options.approver ?? defaultApprover(),
    settings,
    redactor: options.redactor,
  };
  return {
    name: 'harness',
    model: model.info,
    policy: path.relative(process.cwd(), policyFile) || policyFile,
    sandbox: settings.sandboxMode,
    sandboxReason: settings.sandboxReason,
    checkSandbox: settings.sandboxMode,
    async run(task: Task, ctx: AdapterRunContext): Promise<Trace> {
      if (task.toolCall) {
        return runPolicyTask(
          { id: task.id, epoch: ctx.epoch, workspace: ctx.workspace, toolCall: task.toolCall, execute: task.toolCall.execute, toolLimits: task.toolLimits },
          deps,
          ctx.signal,
        );
      }
      return runAgent(
        { id: task.id, prompt: task.prompt ?? '', workspace: ctx.workspace, maxSteps: task.maxSteps ?? settings.maxSteps, epoch: ctx.epoch, deadline: ctx.deadline, park: ctx.park, toolLimits: task.toolLimits },
        deps,
        ctx.signal,
      );
    },
  };
}
