import { providerFaultKey } from '../provider/providerFault.js';
import type { Trial } from '../schema/report.js';
import { FAULT_STREAK_LIMIT } from '../schema/runDefaults.js';

/**
 * Watches the first trials of a run: when the first FAULT_STREAK_LIMIT to end all errored on the
 * same provider fault (an outage, a model name the endpoint does not know, a spent quota), the
 * others would too, each after spending its whole retry budget. Disarmed by the first trial that
 * ended any other way; the resumed trials of --resume count as any other.
 */
export class FaultStreak {
  private key: string | null = null;
  private count = 0;
  private disarmed = false;

  constructor(private readonly limit = FAULT_STREAK_LIMIT) {}

  /** Why the run should stop now, or null. `left`: trials not yet ended (none: nothing to save). */
  observe(taskId: string, trial: Trial, left: number): string | null {
    if (this.disarmed) return null;
    const key = trial.error ? providerFaultKey(trial.error, taskId) : null;
    if (key === null || (this.key !== null && key !== this.key)) {
      this.disarmed = true;
      return null;
    }
    this.key = key;
    if (++this.count < this.limit || left === 0) return null;
    this.disarmed = true;
    return `the first ${this.count} trials all errored on the same provider fault, and the ${left} left would too: ${trial.error!.message}`;
  }
}
