import type { LandingColumn } from "../connection/landing-table.js";

/**
 * Encoding of values into PostgreSQL's COPY text format: columns separated by a tab, rows ended by
 * a newline, `\N` for null, and backslash, tab, newline and carriage return escaped in every value.
 */

/** Turns one value into the text of one COPY field (already escaped). */
export type FieldEncoder = (value: unknown) => string;

/** The COPY text of SQL NULL. */
export const COPY_NULL = "\\N";

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** Escapes backslash, tab, newline and carriage return for COPY text format. */
export function escapeCopyText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : text;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return String(value);
  }
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

function booleanText(value: unknown): string {
  if (typeof value === "boolean") return value ? "t" : "f";
  return asText(value);
}

function jsonText(value: unknown): string {
  return JSON.stringify(value);
}

/** The encoder of a column of PostgreSQL type `pgType`; null and undefined become `\N`. */
export function fieldEncoder(pgType: string): FieldEncoder {
  const type = pgType.toLowerCase();
  const toText = type === "jsonb" || type === "json" ? jsonText : type === "boolean" ? booleanText : asText;
  return (value) => (value === null || value === undefined ? COPY_NULL : escapeCopyText(toText(value)));
}

/** Encoders for `columns` in order. */
export function columnEncoders(columns: readonly LandingColumn[]): FieldEncoder[] {
  return columns.map((column) => fieldEncoder(column.pgType));
}
