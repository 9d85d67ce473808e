/**
 * Calendar arithmetic on `YYYY-MM-DD` strings in UTC. Windows are plain strings so they compare
 * lexically, print as they are stored (Postgres `date`) and never shift with a local time zone.
 */

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** True when `text` is a real calendar date written `YYYY-MM-DD` (2026-02-30 is not). */
export function isUtcDay(text: string): boolean {
  if (!DAY_PATTERN.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/**
 * What is wrong with `text` as a day, or undefined when it is a real `YYYY-MM-DD` day:
 * `2026-02-30 is not a real date (February 2026 has 28 days)`, or `expected a date YYYY-MM-DD,
 * got "08/01/2026"` when it is not written as one.
 */
export function dayProblem(text: string): string | undefined {
  if (!DAY_PATTERN.test(text)) return `expected a date YYYY-MM-DD, got "${text}"`;
  if (isUtcDay(text)) return undefined;
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  const monthName = MONTHS[month - 1];
  if (monthName === undefined) return `${text} is not a real date (months run from 01 to 12)`;
  if (day === 0) return `${text} is not a real date (days run from 01)`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${text} is not a real date (${monthName} ${year} has ${days} days)`;
}

/** Epoch ms of 00:00 UTC of `day`; throws a RangeError on anything but a real `YYYY-MM-DD`. */
export function dayToMs(day: string): number {
  if (!isUtcDay(day)) throw new RangeError(`expected a date YYYY-MM-DD, got "${day}"`);
  return Date.parse(`${day}T00:00:00Z`);
}

/** The UTC calendar day of an instant. */
export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `day` moved by `days` (negative goes back). */
export function addDays(day: string, days: number): string {
  return utcDayOf(dayToMs(day) + days * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayToMs(to) - dayToMs(from)) / DAY_MS);
}

/** The earlier of two days. */
export function minDay(a: string, b: string): string {
  return a <= b ? a : b;
}

/** The later of two days. */
export function maxDay(a: string, b: string): string {
  return a >= b ? a : b;
}
