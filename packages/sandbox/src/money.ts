/**
 * Money in the sandbox is an integer number of micro-dollars (1e-6 USD), so sums are exact; it is
 * formatted as a decimal string with trailing zeros trimmed but at least two decimals ("0.027", "1.50").
 */

/** Micro-dollars per dollar. */
export const MICROS = 1_000_000;

/** Formats micro-dollars as the platform's decimal string. */
export function formatMicros(micros: number): string {
  const negative = micros < 0;
  const abs = Math.abs(Math.round(micros));
  const whole = Math.floor(abs / MICROS);
  let frac = String(abs % MICROS).padStart(6, "0");
  while (frac.length > 2 && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${negative ? "-" : ""}${whole}.${frac}`;
}

/** Parses a decimal string into micro-dollars (exact for up to six decimals). */
export function parseMicros(text: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,6})\d*)?$/.exec(text);
  if (!match) throw new Error(`not a decimal string: ${text}`);
  const micros = Number(match[2]) * MICROS + Number((match[3] ?? "").padEnd(6, "0"));
  return match[1] === "-" ? -micros : micros;
}
