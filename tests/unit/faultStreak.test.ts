import { describe, expect, it } from 'vitest';
import { ProviderFaultError, providerFaultKey } from '../../src/provider/providerFault.js';
import { FaultStreak } from '../../src/runner/faultStreak.js';
import type { Trial } from '../../src/schema/report.js';
import { makeReport } from '../helpers/reportBuilder.js';

const base = makeReport([{ id: 'a', trials: 'e' }]).tasks[0]!.trials[0]!;
const errored = (message: string, code: NonNullable<Trial['error']>['code'] = 'PROVIDER_ERROR'): Trial => ({ ...base, error: { code, message } });
const outlasted = (taskId: string, retries: number) =>
  `task ${taskId}, step 1: ${new ProviderFaultError('http://127.0.0.1:9/v1/chat/completions', Array.from({ length: retries + 1 }, (_, i) => ({ fault: 'server_error' as const, status: 500, detail: `req_${i}${taskId}` })), 'and the time budget ran out').message}`;

describe('the same provider fault, trial after trial', () => {
  it('is one key whatever the task, step, retry count or request id', () => {
    expect(providerFaultKey({ code: 'PROVIDER_ERROR', message: outlasted('t1', 3) }, 't1')).toBe('server_error (HTTP 500)');
    expect(providerFaultKey({ code: 'PROVIDER_ERROR', message: outlasted('t2', 7) }, 't2')).toBe('server_error (HTTP 500)');
    const refused = (id: string, step: number) => providerFaultKey({ code: 'PROVIDER_ERROR', message: `task ${id}, step ${step}: 401 invalid api key` }, id);
    expect(refused('alpha', 1)).toBe(refused('beta_2', 3));
    expect(refused('alpha', 1)).not.toBe(providerFaultKey({ code: 'PROVIDER_ERROR', message: 'task alpha, step 1: 404 no such model' }, 'alpha'));
    expect(providerFaultKey({ code: 'TASK_TIMEOUT', message: 'task did not finish' }, 'a')).toBeNull();
  });

  it('stops at the fifth alike, only when trials are left, and never after a trial that differed', () => {
    const streak = new FaultStreak();
    const results = [1, 2, 3, 4, 5].map((i) => streak.observe(`t${i}`, errored(outlasted(`t${i}`, i)), 10 - i));
    expect(results.slice(0, 4)).toEqual([null, null, null, null]);
    expect(results[4]).toMatch(/^the first 5 trials all errored on the same provider fault, and the 5 left would too: task t5, step 1: http/);

    const lastOne = new FaultStreak();
    expect([1, 2, 3, 4, 5].map((i) => lastOne.observe(`t${i}`, errored(outlasted(`t${i}`, 1)), 5 - i))).toEqual([null, null, null, null, null]);

    for (const other of [{ ...base, status: 'passed', error: null } as Trial, errored('task t2, step 1: 404 gone'), errored('x', 'TASK_TIMEOUT')]) {
      const broken = new FaultStreak();
      broken.observe('t1', errored(outlasted('t1', 1)), 20);
      broken.observe('t2', other, 19);
      expect([3, 4, 5, 6, 7, 8].map((i) => broken.observe(`t${i}`, errored(outlasted(`t${i}`, 1)), 20 - i))).toEqual([null, null, null, null, null, null]);
    }
  });
});
