import { describe, expect, it } from 'vitest';
import { resolveRun, type ResolveFlags, type RunInputs } from '../../src/cli/resolveRun.js';
import type { LoadedVariant } from '../../src/cli/variantOption.js';
import type { RunReport } from '../../src/schema/report.js';
import { RUN_DEFAULTS } from '../../src/schema/runDefaults.js';

const flags = (extra: Partial<ResolveFlags> = {}): ResolveFlags => ({ apiKeyEnv: 'OPENAI_API_KEY', sandbox: 'process', timeout: 60_000, concurrency: 2, epochs: 1, cassettes: 'c', ...extra });
const inputs = (extra: Partial<RunInputs> = {}): RunInputs => ({ suiteDefaults: { cassettes: null, policy: null, mcpServers: null }, policyTasksOnly: false, variant: null, gate: { rules: {}, baseline: null }, ...extra });
const variant = (maxSteps?: number): LoadedVariant => ({ name: 'v', file: 'v.json', settings: { model: undefined, harness: maxSteps === undefined ? {} : { maxSteps } }, policy: undefined, cassettes: undefined });

describe('resolveRun: what a run does, decided once', () => {
  it('takes the step limit from the flag, else the variant, else the default, for the harness and an external agent alike', () => {
    expect(resolveRun(flags(), {}, inputs())).toMatchObject({ maxSteps: RUN_DEFAULTS.maxSteps, maxStepsFrom: 'default', selection: { max_steps: RUN_DEFAULTS.maxSteps } });
    const fromVariant = resolveRun(flags(), {}, inputs({ variant: variant(1) }));
    expect(fromVariant).toMatchObject({ maxSteps: 1, maxStepsFrom: 'variant', selection: { max_steps: 1 } });
    expect(fromVariant.system).toMatchObject({ adapter: 'harness', settings: { maxSteps: 1 } });
    expect(resolveRun(flags({ maxSteps: 3 }), {}, inputs({ variant: variant(1) }))).toMatchObject({ maxSteps: 3, maxStepsFrom: 'flag' });
    expect(resolveRun(flags({ agentCmd: 'python3 a.py' }), {}, inputs({ variant: variant(2) })).system).toMatchObject({ adapter: 'command', maxSteps: 2 });
  });

  it('takes alpha from the gate inputs, else the default, and hands on the baseline read once', () => {
    const baseline = { schema_version: 'report/v1' } as unknown as RunReport;
    expect(resolveRun(flags(), {}, inputs()).alpha).toBe(RUN_DEFAULTS.alpha);
    const run = resolveRun(flags({ epochs: 'auto' }), {}, inputs({ gate: { rules: { alpha: 0.1 }, baseline: { report: baseline, file: 'b.json', traceDir: null } } }));
    expect(run).toMatchObject({ alpha: 0.1, epochs: 'auto', maxEpochs: RUN_DEFAULTS.maxEpochs });
    expect(run.baseline).toBe(baseline);
  });

  it('is frozen, and refuses a combination that cannot run (exit 2) before any trial', () => {
    const run = resolveRun(flags(), {}, inputs());
    expect(Object.isFrozen(run)).toBe(true);
    expect(Object.isFrozen(run.system)).toBe(true);
    expect(() => resolveRun(flags({ agentCmd: 'a', agentUrl: 'http://x' }), {}, inputs())).toThrow(expect.objectContaining({ code: 'ADAPTER_CONFIG', message: expect.stringMatching(/not both/) }));
    expect(() => resolveRun(flags({ agentCmd: 'a' }), {}, inputs({ variant: { ...variant(), settings: { model: undefined, harness: { temperature: 1 } } } }))).toThrow(/only the reference harness reads/);
  });
});
