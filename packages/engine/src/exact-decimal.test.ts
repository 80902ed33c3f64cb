import { describe, expect, it } from 'vitest';
import { compareDecimals, decimalOf, isIntegral, isMultipleOf } from './exact-decimal.js';

const cmp = (a: string, b: string) => compareDecimals(decimalOf(a), decimalOf(b));

describe('exact decimals', () => {
  it('orders literals by their values, where their doubles are one', () => {
    expect(cmp('12345678901234567891', '12345678901234567892')).toBe(-1);
    expect(cmp('9223372036854775808', '9223372036854775807')).toBe(1);
    expect(cmp('100.0000000000000001', '100')).toBe(1);
    expect(cmp('-100.0000000000000001', '-100')).toBe(-1);
    expect(cmp('1.5e3', '1500.000')).toBe(0);
    expect(cmp('-0', '0e-400')).toBe(0);
    expect(cmp('0.13', '0.123')).toBe(1);
    expect(cmp('-1e-400', '0')).toBe(-1);
    expect(cmp('1e-400', '-5')).toBe(1);
    expect(cmp('99', '100')).toBe(-1);
  });

  it('tells integers by their value, not their form', () => {
    expect(isIntegral(decimalOf('1.5e1'))).toBe(true);
    expect(isIntegral(decimalOf('12345678901234567891.0'))).toBe(true);
    expect(isIntegral(decimalOf('9007199254740993.5'))).toBe(false);
    expect(isIntegral(decimalOf('0.0'))).toBe(true);
  });

  it('finds multiples exactly, of integers and of decimals', () => {
    const multiple = (a: string, b: string) => isMultipleOf(decimalOf(a), decimalOf(b));
    expect(multiple('12345678901234567891', '1000')).toBe(false);
    expect(multiple('12345678901234567000', '1000')).toBe(true);
    expect(multiple('100.0000000000000001', '0.01')).toBe(false);
    expect(multiple('99.99', '0.01')).toBe(true);
    expect(multiple('0.3', '0.1')).toBe(true);
    expect(multiple('1e300', '7')).toBe(false);
    expect(multiple('7e300', '7')).toBe(true);
    expect(multiple('0', '3')).toBe(true);
    expect(multiple(`0.5${'0'.repeat(200_000)}1`, '0.01')).toBe(false);
  });
});
