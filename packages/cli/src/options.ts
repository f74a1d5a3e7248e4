/**
 * Parsers of numeric command-line values, for commander's `.option(flags, description, parser,
 * default)`: a bad value stops the command before it does anything, with commander's
 * `option '--port <port>' argument 'abc' is invalid. must be ...` on stderr (exit code 1).
 */
import { InvalidArgumentError } from 'commander';

/** What a numeric flag accepts. */
export interface NumberRule {
  /** Whole numbers only. */
  integer?: boolean;
  /** Smallest value (default 0). */
  min?: number;
  /** `min` itself is refused (the value must be greater). */
  exclusiveMin?: boolean;
  /** Largest value accepted, if any. */
  max?: number;
}

/** Plain decimal notation: what Go's strconv.ParseInt / ParseFloat of a kube flag would take, without exponents or hex. */
const integerText = /^[-+]?\d+$/;
const decimalText = /^[-+]?(\d+\.?\d*|\.\d+)$/;

/**
 * A parser of a number within the rule, written in plain decimal notation (`10`, `0.5`): blank,
 * `NaN`, `Infinity`, hex (`0x10`), exponents (`1e3`), a fraction where an integer is needed, and
 * out-of-range values are refused.
 * @throws InvalidArgumentError, e.g. `must be an integer >= 1, got "x"`
 */
export function numberArg(rule: NumberRule = {}): (value: string) => number {
  const min = rule.min ?? 0;
  const what = `${rule.integer ? 'an integer' : 'a number'} ${rule.exclusiveMin ? '>' : '>='} ${min}${rule.max !== undefined ? ` and <= ${rule.max}` : ''}`;
  const text = rule.integer ? integerText : decimalText;
  return (value: string): number => {
    const n = Number(value);
    const tooSmall = rule.exclusiveMin ? n <= min : n < min;
    if (!text.test(value) || !Number.isFinite(n) || tooSmall || (rule.max !== undefined && n > rule.max)) {
      throw new InvalidArgumentError(`must be ${what}, got "${value}"`);
    }
    return n;
  };
}

/** A TCP port: an integer from 0 (pick a free one) to 65535. */
export const portArg = numberArg({ integer: true, min: 0, max: 65535 });
