import { InvalidArgumentError } from 'commander';
import { MAX_TIMEOUT_MS } from '../schema/timerLimit.js';

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

/**
 * A rate: a fraction from 0 to 1 (0.05) or a percentage with its sign (5%). A bare number above 1
 * is refused rather than guessed at (is 1.5 150% or 1.5%?).
 */
export function rate(value: string): number {
  const percent = value.trim().endsWith('%');
  const text = percent ? value.trim().slice(0, -1) : value.trim();
  const n = text === '' ? NaN : Number(text);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a fraction from 0 to 1 (e.g. 0.05) or a percentage (e.g. 5%)');
  if (percent) {
    if (n > 100) throw new InvalidArgumentError('a rate cannot exceed 100%');
    return n / 100;
  }
  if (n > 1) throw new InvalidArgumentError(`${value} is above 1: give a fraction from 0 to 1 (e.g. ${n < 100 ? (n / 100).toString() : '0.05'}) or a percentage with its sign (e.g. ${value}%)`);
  return n;
}

export function probability(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n >= 1) throw new InvalidArgumentError('expected a number between 0 and 1, e.g. 0.05');
  return n;
}

/** Most epochs a run may ask for (--epochs, --max-epochs): beyond it is a typo, not a plan. */
export const MAX_EPOCHS = 10_000;

/** An epoch count: a whole number from 1 to MAX_EPOCHS. */
export function epochs(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_EPOCHS) throw new InvalidArgumentError(`at most ${MAX_EPOCHS}`);
  return n;
}

/** --epochs: a whole number from 1 to MAX_EPOCHS, or `auto` (staged re-runs, see docs/statistics.md). */
export function epochsOption(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : epochs(value);
}
