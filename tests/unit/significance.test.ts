import { describe, expect, it } from 'vitest';
import { exactMcNemarP, pairedProportionInterval, pairedSignificance, pairedT } from '../../src/baseline/significance.js';

// Reference values computed independently: exact binomial sums by hand, and R's t.test on the
// `sleep` data set (t = -4.0621, df = 9, p-value = 0.002833, 95% CI -2.4598858 -0.7001142).
describe('paired statistics', () => {
  it('exact McNemar p-values match the binomial sums', () => {
    // 1 vs 9 flips: 2 * (C(10,0) + C(10,1)) / 2^10 = 22/1024
    expect(exactMcNemarP(1, 9)).toBeCloseTo(22 / 1024, 9);
    // 0 vs 5: 2 / 32
    expect(exactMcNemarP(0, 5)).toBeCloseTo(2 / 32, 9);
    // 3 vs 3 is capped at 1
    expect(exactMcNemarP(3, 3)).toBe(1);
    expect(exactMcNemarP(0, 0)).toBe(1);
    // 2 vs 12: 2 * (1 + 14 + 91) / 16384
    expect(exactMcNemarP(2, 12)).toBeCloseTo((2 * 106) / 16384, 9);
  });

  it('the paired t-test matches R on the sleep data', () => {
    const g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
    const r = pairedT(g1.map((v, i) => v - g2[i]!), 0.95);
    expect(r.t).toBeCloseTo(-4.0621, 3);
    expect(r.p).toBeCloseTo(0.002833, 5);
    expect(r.low).toBeCloseTo(-2.4598858, 5);
    expect(r.high).toBeCloseTo(-0.7001142, 5);
  });

  it('the Agresti–Min interval is centred on the adjusted difference and contains zero when nothing flipped', () => {
    const [low, high] = pairedProportionInterval(0, 0, 50, 0.95);
    expect(low).toBeLessThan(0);
    expect(high).toBeGreaterThan(0);
    expect(low).toBeCloseTo(-high, 9);
    // 2 improved, 10 regressed of 40: b'=2.5, c'=10.5, n'=42 → d' = -8/42
    const [l2, h2] = pairedProportionInterval(2, 10, 40, 0.95);
    expect((l2 + h2) / 2).toBeCloseTo(-8 / 42, 10);
    const se = Math.sqrt(13 - 64 / 42) / 42;
    expect(h2 - l2).toBeCloseTo(2 * 1.959963985 * se, 6);
  });

  it('gives a three-way verdict', () => {
    const drop = Array.from({ length: 40 }, (_, i) => ({ baseline: 1, current: i < 12 ? 0 : 1 }));
    const regressed = pairedSignificance(drop, 1);
    expect(regressed).toMatchObject({ method: 'exact_mcnemar', verdict: 'regressed', regressed: 12, improved: 0 });
    expect(regressed.delta).toBeCloseTo(-0.3, 9);
    const gain = pairedSignificance(drop.map((p) => ({ baseline: p.current, current: p.baseline })), 1);
    expect(gain.verdict).toBe('improved');
    const few = pairedSignificance(drop.slice(0, 3), 1);
    expect(few.verdict).toBe('inconclusive');
  });

  it('uses the paired t-test on pass fractions with epochs, and reports a minimum detectable effect', () => {
    const outcomes = Array.from({ length: 30 }, (_, i) => ({ baseline: 1, current: i % 3 === 0 ? 1 / 3 : 1 }));
    const s = pairedSignificance(outcomes, 3);
    expect(s.method).toBe('paired_t');
    expect(s.verdict).toBe('regressed');
    expect(s.ci_high).toBeLessThan(0);
    expect(s.minimum_detectable_effect).toBeGreaterThan(0);
    const same = pairedSignificance(outcomes.map((o) => ({ baseline: o.current, current: o.current })), 3);
    expect(same).toMatchObject({ verdict: 'inconclusive', p_value: 1 });
  });
});
