/**
 * The one place each default of a run lives (Vitest's configDefaults). Every flag's default, the
 * adapters' fallbacks and the help text read these values; nothing else spells them. What a run
 * actually uses is decided once, from these and every input, by src/cli/resolveRun.ts.
 */
const defaults = {
  /** Step limit for a task that sets no max_steps (--max-steps, a variant's max_steps). */
  maxSteps: 10,
  /** --sandbox: bubblewrap where it works, else a process group. */
  sandbox: 'auto' as const,
  /** The paired test's significance level when neither --alpha nor the gate file gives one. */
  alpha: 0.05,
  /** --epochs: trials per task. */
  epochs: 1,
  /** --max-epochs with --epochs auto: most trials any task gets. */
  maxEpochs: 5,
  /** -j: tasks run at once. */
  concurrency: 4,
  /** --timeout: per-task time limit in milliseconds. */
  timeoutMs: 300_000,
  /** -o: the output folder. */
  out: 'reports/latest',
  /** --api-key-env: where the upstream key is read from. */
  apiKeyEnv: 'OPENAI_API_KEY',
  /** Where a live model's calls go when neither --base-url nor OPENAI_BASE_URL names one. */
  openaiBaseUrl: 'https://api.openai.com/v1',
  /** report.html: most traces embedded (beyond this they are linked), and about how many bytes of them. */
  maxEmbeddedTraces: 2000,
  traceBudgetBytes: 16 * 1024 * 1024,
};

export const RUN_DEFAULTS: Readonly<typeof defaults> = Object.freeze(defaults);

/** How many trials, from the first to end, must all error on one provider fault before the run stops (src/runner/faultStreak.ts). */
export const FAULT_STREAK_LIMIT = 5;
