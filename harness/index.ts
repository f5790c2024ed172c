/** The reference harness's public surface: what an adapter (or any program) may use. */
export { MAX_TOOL_CALLS_PER_REPLY, runAgent, stripThink, type AgentTask } from './agent/loop.js';
export { runPolicyTask, type PolicyTaskInput } from './agent/policyTask.js';
export { DEFAULT_SETTINGS, DEFAULT_SYSTEM_PROMPT, type HarnessDeps, type HarnessSettings } from './agent/config.js';
export { OpenAIModel, type OpenAIModelOptions } from './model/openaiModel.js';
export { CassetteModel, readCassette, cassettePath } from './model/cassetteModel.js';
export { RecordingModel } from './model/recordingModel.js';
export { NoModel } from './model/noModel.js';
export { ModelError, type Model, type ModelReply, type ModelRequest } from './model/types.js';
export { defaultApprover, nonInteractiveApprover, TerminalApprover, type Approver } from './approval/approval.js';
export { loadPolicy, defaultPolicyPath } from './policy/loadPolicy.js';
export { decideToolCall, decideShell, type Decision } from './policy/decide.js';
export { hasBubblewrap, probeBubblewrap, runCommand, sandboxEnv, type SandboxMode } from './sandbox/runCommand.js';
export { chooseSandbox, sandboxKind, SANDBOX_REQUESTS, SandboxUnavailableError, type SandboxChoice, type SandboxRequest } from './sandbox/sandboxChoice.js';
export { toolDefinitions, TOOLS } from './tools/registry.js';
