import { z } from "zod";

/**
 * Exact JSON numbers. The platform writes some amounts as JSON numbers (the billing ledger's
 * `amount` and `balance_after`); read through a binary float they lose digits (`0.1`, 17 significant
 * digits) and trailing zeros. A body is parsed with {@link parseJsonExact}, which keeps the named
 * fields' numbers as their source text (a `JSON.rawJSON` value, which `JSON.stringify` writes back
 * byte for byte), and {@link exactNumber} checks such a field and gives its source text.
 * Needs Node 22 or later (`JSON.parse` source text access, `JSON.rawJSON`).
 */

/** A JSON number kept as its source text (`JSON.rawJSON`). */
export interface RawJsonNumber {
  readonly rawJSON: string;
}

/** The parts of Node 22's `JSON` that TypeScript's ES2023 library does not declare yet. */
interface SourceTextJson {
  rawJSON?(text: string): RawJsonNumber;
  isRawJSON?(value: unknown): value is RawJsonNumber;
}

const sourceTextJson = JSON as unknown as SourceTextJson;

/** True when this runtime can keep a JSON number's source text (Node 22 and later). */
export function supportsExactNumbers(): boolean {
  return typeof sourceTextJson.rawJSON === "function" && typeof sourceTextJson.isRawJSON === "function";
}

/** True for a number {@link parseJsonExact} kept as its source text. */
export function isRawJsonNumber(value: unknown): value is RawJsonNumber {
  return sourceTextJson.isRawJSON?.(value) === true;
}

/**
 * `JSON.parse(text)`, except that a number held by a property named in `fields` (at any depth)
 * becomes a `JSON.rawJSON` of its source text; everything else is parsed as usual. Throws a
 * SyntaxError for bad JSON, and an Error when the runtime cannot give source text (before Node 22).
 */
export function parseJsonExact(text: string, fields: readonly string[]): unknown {
  if (fields.length === 0) return JSON.parse(text);
  if (!supportsExactNumbers()) {
    throw new Error("exact JSON numbers need Node 22 or later (JSON.parse source text, JSON.rawJSON)");
  }
  const exact = new Set(fields);
  const rawJSON = sourceTextJson.rawJSON!;
  // The third argument (`context.source`) is Node 22's; the ES2023 typings do not know it.
  const reviver = (key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && exact.has(key) && context?.source !== undefined
      ? rawJSON(context.source)
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** A JSON number's source text as the platform writes it: plain or exponent notation. */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function describeJson(value: unknown): string {
  if (value === undefined) return "nothing (the field is missing)";
  if (value === null) return "null";
  if (typeof value === "number") return "a number parsed without its source text";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * A field the platform sends as a JSON number that must stay exact: accepts only a number parsed by
 * {@link parseJsonExact} and gives its source text (`"-0.10"`, `"1e-7"`), which PostgreSQL's
 * `numeric` reads exactly. A string (schema drift), null or missing value is an issue
 * "expected a JSON number, got …".
 */
export const exactNumber = z.unknown().transform((value, ctx) => {
  if (isRawJsonNumber(value) && NUMBER_TEXT.test(value.rawJSON)) return value.rawJSON;
  ctx.addIssue({ code: "custom", message: `expected a JSON number, got ${describeJson(value)}` });
  return z.NEVER;
});

/** Like {@link exactNumber}, for an integer id (int64: beyond 2^53 a float would change it). */
export const exactInteger = z.unknown().transform((value, ctx) => {
  if (isRawJsonNumber(value) && /^-?(0|[1-9]\d*)$/.test(value.rawJSON)) return value.rawJSON;
  ctx.addIssue({ code: "custom", message: `expected a JSON integer, got ${describeJson(value)}` });
  return z.NEVER;
});

/** The source text of a raw row's exact number (for identities of unchecked rows), else the value itself. */
export function sourceTextOf(value: unknown): unknown {
  return isRawJsonNumber(value) ? value.rawJSON : value;
}
