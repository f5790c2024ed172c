/**
 * What `--sandbox` asks for: a sandbox mode of harness/sandbox, or `auto` (bubblewrap when it works
 * here, else the process group). Plain data, so the CLI's help lists the choices without loading
 * the sandbox; harness/sandbox/sandboxChoice.ts checks the list against its modes.
 */
export const SANDBOX_REQUESTS = ['auto', 'process', 'bwrap'] as const;
export type SandboxRequest = (typeof SANDBOX_REQUESTS)[number];
