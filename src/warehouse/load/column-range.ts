/**
 * What a landing column can hold, by the PostgreSQL type it is declared with (its declaration in the
 * stream is the one definition; the migration check keeps the DDL equal to it): the limits
 * PostgreSQL itself enforces on input ("Numeric Types", "Date/Time Types", "Character Types" of its
 * manual, each checked against a real server). One value past them (an `integer` given 3000000000)
 * made the COPY fail, and with it the whole window on every run; the loader now asks this first
 * and quarantines the row instead. Cheap on purpose: it runs for every value of every row, with
 * no allocation unless a value does not fit.
 */
import type { LandingColumn, PgType } from "../connection/landing-table.js";

/** How values of one type are checked, and the range a message states. */
interface TypeRange {
  readonly fits: (value: unknown) => boolean;
  readonly range: string;
}

const INT4_MAX = "2147483647";
const INT8_MAX = "9223372036854775807";
/** Digits a numeric may have before its decimal point, and after it. */
const NUMERIC_INTEGER_DIGITS = 131_072;
const NUMERIC_SCALE = 16_383;
/** The largest UTC offset PostgreSQL reads in a timestamp, in minutes (15:59). */
const MAX_OFFSET_MINUTES = 15 * 60 + 59;

/**
 * Per PostgreSQL type, what fits a column of it; null where every value the loader can produce
 * does (a JSON number is a finite double; booleans and jsonb come from JSON).
 */
export const COLUMN_RANGES: Readonly<Record<PgType, TypeRange | null>> = {
  text: { fits: fitsText, range: "text: no NUL character (U+0000)" },
  integer: {
    fits: (value) => fitsInteger(value, 2 ** 31, INT4_MAX),
    range: `integer: -2147483648 to ${INT4_MAX}`,
  },
  bigint: {
    fits: (value) => fitsInteger(value, 2 ** 63, INT8_MAX),
    range: `bigint: -9223372036854775808 to ${INT8_MAX}`,
  },
  numeric: {
    fits: fitsNumeric,
    range: `numeric: at most ${NUMERIC_INTEGER_DIGITS} digits before the decimal point and ${NUMERIC_SCALE} after`,
  },
  "double precision": null,
  timestamptz: { fits: fitsTimestamp, range: "timestamptz: years 0001 and later, UTC offsets within ±15:59" },
  date: { fits: fitsDate, range: "date: years 0001 and later" },
  boolean: null,
  jsonb: null,
};

/** A value that does not fit its column: which column, the value as a short text, and the range. */
export interface ColumnMisfit {
  readonly column: string;
  readonly value: string;
  readonly range: string;
}

/** Checks the typed values of one row of a table; null when every value fits. */
export type ColumnRangeCheck = (values: Readonly<Record<string, unknown>>) => ColumnMisfit | null;

/** The check of a table's columns, made once per table: only the columns whose type has limits are looked at. */
export function columnRangeCheck(columns: readonly LandingColumn[]): ColumnRangeCheck {
  const checked = columns.flatMap((column) => {
    const range = COLUMN_RANGES[column.pgType];
    return range === null ? [] : [{ name: column.name, ...range }];
  });
  return (values) => {
    for (const column of checked) {
      const value = values[column.name];
      if (value === null || value === undefined || column.fits(value)) continue;
      return { column: column.name, value: shortText(value), range: column.range };
    }
    return null;
  };
}

function fitsText(value: unknown): boolean {
  return typeof value !== "string" || !value.includes("\0");
}

/**
 * An integer below `limit` in magnitude (the negative end reaching `-limit`), as a JS number or as
 * integer text (at most `max`'s digits, compared digit by digit at its length). A number beyond
 * 2^53 is judged by the text COPY writes for it (`2 ** 63` is "9223372036854776000", too big).
 */
function fitsInteger(value: unknown, limit: number, max: string): boolean {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return false;
    if (Math.abs(value) <= Number.MAX_SAFE_INTEGER) return value >= -limit && value < limit;
    return fitsInteger(String(value), limit, max);
  }
  if (typeof value !== "string") return false;
  const text = value.trim();
  const negative = text.startsWith("-");
  const digits = text.replace(/^[+-]/, "").replace(/^0+(?=\d)/, "");
  if (!/^\d+$/.test(digits)) return false;
  if (digits.length !== max.length) return digits.length < max.length;
  // The negative end is one further: -2147483648 fits, 2147483648 does not.
  const last = negative ? `${max.slice(0, -1)}${Number(max.at(-1)) + 1}` : max;
  return digits <= last;
}

/** A plain decimal short enough to fit whatever its digits (the common case, tested first). */
const SHORT_DECIMAL = /^-?\d{1,1000}(\.\d{1,1000})?$/;
const DECIMAL = /^\s*[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * A JS number always fits (a finite double has at most 309 integer digits); text fits when its
 * digits before the point, once its exponent is applied, and its scale (digits after the point
 * as written, minus the exponent) are within PostgreSQL's numeric limits.
 */
function fitsNumeric(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "string") return false;
  if (SHORT_DECIMAL.test(value)) return true;
  const parts = DECIMAL.exec(value);
  if (parts === null) return false;
  const fraction = parts[2] ?? "";
  // A mantissa without a digit ("e5", ".") is no number at all.
  if ((parts[1] ?? "") === "" && fraction === "") return false;
  const integer = (parts[1] ?? "").replace(/^0+/, "");
  const exponent = Number(parts[3] ?? "0");
  if (fraction.length - exponent > NUMERIC_SCALE) return false;
  if (integer !== "") return integer.length + exponent <= NUMERIC_INTEGER_DIGITS;
  // Only a fraction: its first significant digit decides how far left of the point it can move.
  const leadingZeros = fraction.length - fraction.replace(/^0+/, "").length;
  return exponent - leadingZeros <= NUMERIC_INTEGER_DIGITS;
}

/** An ISO date-time: not in year 0000 (there is none), with an offset PostgreSQL reads (within ±15:59). */
function fitsTimestamp(value: unknown): boolean {
  if (typeof value !== "string") return true;
  if (!fitsDate(value)) return false;
  // The usual case, a UTC instant ending in Z, has no offset to read.
  if (value.charCodeAt(value.length - 1) === 90) return true;
  const time = value.indexOf("T");
  const sign = Math.max(value.lastIndexOf("+"), value.lastIndexOf("-"));
  if (time < 0 || sign < time) return true;
  const digit = (at: number) => value.charCodeAt(at) - 48;
  const hours = digit(sign + 1) * 10 + digit(sign + 2);
  const minuteAt = value.charCodeAt(sign + 3) === 58 ? sign + 4 : sign + 3;
  const minutes = minuteAt + 1 < value.length ? digit(minuteAt) * 10 + digit(minuteAt + 1) : 0;
  return hours * 60 + minutes <= MAX_OFFSET_MINUTES;
}

/** An ISO date (or date-time) not in year 0000, which PostgreSQL refuses ("field value out of range"). */
function fitsDate(value: unknown): boolean {
  return typeof value !== "string" || !value.startsWith("0000");
}

/** A value as a message shows it: numbers as written, text quoted and cut to 60 characters. */
function shortText(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length <= 60 ? text : `${text.slice(0, 60)}… (${text.length} characters)`;
}
