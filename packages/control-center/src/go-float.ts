/**
 * Go's `%v` for a float64 (`strconv.FormatFloat(v, 'g', -1, 64)`), as kube-apiserver's validation
 * messages and JSONPath printer columns print numbers: the shortest digits that read back as `v`,
 * in `%e` form (`1e+06`, `1.5e-05`) when the exponent is < -4 or >= 6 (JavaScript switches only at
 * >= 21); `NaN`, `+Inf`, `-Inf`, and `-0` for negative zero.
 * Source: https://pkg.go.dev/strconv#FormatFloat and https://pkg.go.dev/fmt (`%v` of a float64 is `%g`).
 * @param v - any number
 * @returns its Go text
 */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}
