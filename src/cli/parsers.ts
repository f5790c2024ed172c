import { InvalidArgumentError } from 'commander';
import { MAX_TIMEOUT_MS } from '../schema/task.js';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

/** A timer length in ms: whole, at least 1, and short enough for a timer (a longer one fires at once). */
export function timeoutMs(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_TIMEOUT_MS) throw new InvalidArgumentError(`at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of at least 0');
  return n;
}

/** A rate as a fraction or a percentage: 0.8, 80%, 80. */
export function rate(value: string): number {
  const percent = value.endsWith('%');
  const n = Number(percent ? value.slice(0, -1) : value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a rate such as 0.8 or 80%');
  const fraction = percent || n > 1 ? n / 100 : n;
  if (fraction > 1) throw new InvalidArgumentError('a rate cannot exceed 100%');
  return fraction;
}

export function probability(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n >= 1) throw new InvalidArgumentError('expected a number between 0 and 1, e.g. 0.05');
  return n;
}

/** --epochs: a whole number of at least 1, or `auto` (staged re-runs, see docs/statistics.md). */
export function epochsOption(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : positiveInt(value);
}
