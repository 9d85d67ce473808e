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

/** 00:00 UTC of a `YYYY-MM-DD` as Date.parse reads it (NaN when it does not), and the real day it is (2026-02-30 is 2026-03-02). */
interface DayStart {
  readonly ms: number;
  readonly day: string | null;
}

/** The days {@link commonTimestampMs} has seen: a load asks for a few dozen, once per row. */
const dayStarts = new Map<string, DayStart>();
/** Distinct days remembered at most (a bound on memory, not a tuning). */
const MAX_REMEMBERED_DAYS = 100_000;

function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

function dayStartOf(day: string): DayStart {
  let start = dayStarts.get(day);
  if (start === undefined) {
    if (dayStarts.size >= MAX_REMEMBERED_DAYS) dayStarts.clear();
    const ms = DAY_PATTERN.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
    start = { ms, day: Number.isNaN(ms) ? null : utcDayOf(ms) };
    dayStarts.set(day, start);
  }
  return start;
}

/**
 * The time of day, in ms, of a timestamp written the way the platform writes them:
 * `YYYY-MM-DDTHH:MM:SS` with `Z` or no zone (read as UTC), a space for the `T`, optionally `.mmm`.
 * Undefined for any other shape (an offset, another precision).
 */
function commonTimeOfDayMs(text: string): number | undefined {
  const zulu = text.charCodeAt(text.length - 1) === 90; // "Z"
  const bare = zulu ? text.length - 1 : text.length;
  if (bare !== 19 && bare !== 23) return undefined;
  const separator = text[10];
  if ((separator !== "T" && separator !== " ") || text[13] !== ":" || text[16] !== ":") return undefined;
  const hours = digitsAt(text, 11, 2);
  const minutes = digitsAt(text, 14, 2);
  const seconds = digitsAt(text, 17, 2);
  const millis = bare === 23 ? (text[19] === "." ? digitsAt(text, 20, 3) : Number.NaN) : 0;
  if (!(hours <= 23 && minutes <= 59 && seconds <= 59 && millis >= 0)) return undefined;
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
}

/**
 * Epoch ms of a timestamp in the platform's common shape (see {@link commonTimeOfDayMs}): what
 * `Date.parse` gives for it (a zone-less one with `Z` added), without parsing it per row (its day
 * is parsed once per distinct day). Undefined for any other shape: the caller parses that one
 * itself. NaN when its day is no date.
 */
export function commonTimestampMs(text: string): number | undefined {
  const timeOfDay = commonTimeOfDayMs(text);
  return timeOfDay === undefined ? undefined : dayStartOf(text.slice(0, 10)).ms + timeOfDay;
}

/**
 * The UTC day of a timestamp in the platform's common shape, as `utcDayOf(Date.parse(...))` gives
 * it, without allocating per row; undefined for any other shape, null when its day is no date.
 */
export function commonTimestampDay(text: string): string | null | undefined {
  return commonTimeOfDayMs(text) === undefined ? undefined : dayStartOf(text.slice(0, 10)).day;
}

/** A zone designator at the end of a timestamp (`Z`, `+02:00`, `-0500`). */
const ZONE = /(?:[zZ]|[+-]\d\d(?::?\d\d)?)$/;

/**
 * The UTC day of a window column's value (`YYYY-MM-DD` for a date; a timestamp without a zone is
 * read as UTC, as the load's `TimeZone = 'UTC'` reads it); null when there is none to tell.
 */
export function utcDayOfValue(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  if (typeof value !== "string" || value.length < 10) return null;
  if (DAY_PATTERN.test(value)) return value;
  const common = commonTimestampDay(value);
  if (common !== undefined) return common;
  const text = value.includes("T") ? value : value.replace(" ", "T");
  const ms = Date.parse(ZONE.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}
