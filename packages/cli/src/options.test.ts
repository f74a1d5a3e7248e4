import { describe, expect, it } from 'vitest';
import { numberArg, portArg } from './options.js';

describe('numberArg', () => {
  const count = numberArg({ integer: true, min: 1 });
  const seconds = numberArg({ min: 0, exclusiveMin: true });

  it.each(['1', '42', '+7', '007'])('takes the count %j', (v) => {
    expect(count(v)).toBe(Number(v));
  });

  it.each(['0.5', '10', '2.', '.25'])('takes the seconds %j', (v) => {
    expect(seconds(v)).toBe(Number(v));
  });

  it.each(['', ' ', 'x', '1e3', '0x10', '1.5', '0', '-1', 'Infinity', 'NaN', ' 5', '5 ', '1_000'])('refuses the count %j, quoting it', (v) => {
    expect(() => count(v)).toThrow(`must be an integer >= 1, got "${v}"`);
  });

  it.each(['0', '-0.5', '1e-3', '.', 'soon', '1e400'])('refuses the seconds %j', (v) => {
    expect(() => seconds(v)).toThrow('must be a number > 0');
  });

  it('bounds ports to 0..65535', () => {
    expect(portArg('0')).toBe(0);
    expect(portArg('65535')).toBe(65535);
    expect(() => portArg('65536')).toThrow('must be an integer >= 0 and <= 65535, got "65536"');
  });
});
