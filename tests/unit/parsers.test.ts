import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { rate } from '../../src/cli/parsers.js';

describe('rate flags: a fraction 0..1 or N%, never a guess', () => {
  it.each([
    ['0', 0],
    ['0.05', 0.05],
    ['1', 1],
    ['5%', 0.05],
    ['1.01%', 0.0101],
    ['100%', 1],
    ['0%', 0],
  ])('%s is %s', (value, expected) => {
    expect(rate(value)).toBeCloseTo(expected, 10);
  });

  it.each(['1.01', '5', '80', '100'])('a bare %s above 1 is refused, suggesting the fraction and the percentage', (value) => {
    expect(() => rate(value)).toThrow(InvalidArgumentError);
    expect(() => rate(value)).toThrow(new RegExp(`${value} is above 1: .*e\\.g\\. ${value}%`));
  });

  it.each(['', '%', 'abc', '-0.1', '101%', 'NaN', 'Infinity'])('%j is refused', (value) => {
    expect(() => rate(value)).toThrow(InvalidArgumentError);
  });
});
