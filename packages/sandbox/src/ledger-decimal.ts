/**
 * Exact decimals of the sandbox's billing ledger: amounts as an integer count of 1e-18 USD (a
 * bigint), so a running balance over amounts such as `1e-7` or 17 significant digits stays exact.
 * The platform writes them as JSON numbers; the sandbox writes their text by hand, never through
 * a float.
 */

/** Decimal places of a ledger unit (1 unit = 1e-18 USD). */
const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);

/** Micro-dollars (the sandbox's money elsewhere) as ledger units. */
export function unitsOfMicros(micros: number): bigint {
  return BigInt(Math.round(micros)) * 10n ** 12n;
}

/** A JSON number's text (`-0.10`, `309.0601`, `1e-7`) as ledger units; throws beyond 18 decimals. */
export function unitsOfText(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a JSON number: ${text}`);
  const digits = `${match[2]}${match[3] ?? ""}`;
  const shift = SCALE - (match[3]?.length ?? 0) + Number(match[4] ?? 0);
  if (shift < 0) throw new Error(`more than ${SCALE} decimals: ${text}`);
  const units = BigInt(digits) * 10n ** BigInt(shift);
  return match[1] === "-" ? -units : units;
}

/** Ledger units as plain decimal text with trailing zeros trimmed to at least two decimals (`-1.50`). */
export function formatUnits(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  let frac = (abs % ONE).toString().padStart(SCALE, "0");
  while (frac.length > 2 && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${negative ? "-" : ""}${(abs / ONE).toString()}.${frac}`;
}

/**
 * The text PostgreSQL's `numeric` prints for a JSON number's text: the same digits in plain
 * notation, keeping the scale it was written with (`1e-7` is `0.0000001`, `-1.50` stays `-1.50`).
 */
export function numericText(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a JSON number: ${text}`);
  const exponent = Number(match[4] ?? 0);
  if (exponent === 0)
    return match[4] === undefined ? text : `${match[1]}${match[2]}${match[3] ? `.${match[3]}` : ""}`;
  const fraction = match[3] ?? "";
  const scale = Math.max(0, fraction.length - exponent);
  const digits = `${match[2]}${fraction}`.replace(/^0+(?=\d)/, "");
  const padded = digits.padStart(scale + 1, "0");
  const whole = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, "");
  const frac = padded.slice(padded.length - scale);
  const sign = match[1] === "-" && /[1-9]/.test(digits) ? "-" : "";
  return scale === 0
    ? `${sign}${whole}${"0".repeat(Math.max(0, exponent - fraction.length))}`
    : `${sign}${whole}.${frac}`;
}
