/**
 * Flag values every command parses the same way: name lists, dates, the lock timeout. Each bad
 * value is a one-line UsageError naming the flag (exit 2).
 */
import { UsageError } from "../core/errors.js";
import { dayProblem } from "../core/utc-days.js";

/** Collects a repeatable flag's values (each may also be a comma-separated list). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").filter((part) => part.trim() !== "")];
}

/** `--streams a,b` / `--accounts x,y`: a non-empty comma-separated list of names. */
export function parseNameList(flag: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) throw new UsageError(`${flag}: expected a comma-separated list of names`);
  return [...new Set(names)];
}

/** A `YYYY-MM-DD` flag value, or a UsageError naming the flag (`--until: 2026-02-30 is not a real date (…)`). */
export function parseDateFlag(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = dayProblem(value);
  if (problem !== undefined) throw new UsageError(`${flag}: ${problem}`);
  return value;
}

/**
 * A whole number >= 1 given to `flag` (undefined when absent), or a UsageError naming the flag and
 * `expected` (what the flag takes, as its message says it).
 */
export function parsePositiveInteger(
  flag: string,
  value: string | undefined,
  expected = "a positive integer",
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: expected ${expected}, got "${value}"`);
  return n;
}

/** `--lock-timeout SECONDS` in milliseconds. */
export function parseLockTimeout(value: string | undefined): number {
  if (value === undefined) return 0;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || value.trim() === "") {
    throw new UsageError(`--lock-timeout: expected a number of seconds >= 0, got "${value}"`);
  }
  return Math.round(seconds * 1000);
}

/** `--from DATE --to DATE` (both required, inclusive): `--from` after `--to` is a one-line UsageError. */
export function parseDateRange(
  from: string | undefined,
  to: string | undefined,
): { readonly from: string; readonly to: string } {
  const first = parseDateFlag("--from", from);
  const last = parseDateFlag("--to", to);
  if (first === undefined || last === undefined) throw new UsageError("--from and --to are both required");
  if (first > last) throw new UsageError(`--from ${first} is after --to ${last}`);
  return { from: first, to: last };
}
