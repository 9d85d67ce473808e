/**
 * Validation of raw rows at the trust boundary: each row is checked with its stream's zod schema;
 * a valid row becomes a LoadRow (typed columns plus the fields the schema does not know, for
 * `_extra`), an invalid one a reject with the raw JSON and the zod issues. Keys are not trusted to
 * be unique here: duplicates are collapsed by the load.
 */
import type { z } from "zod";
import { type LoadRow, toLoadRow } from "../streams/load-row.js";
import type { StreamDefinition } from "../streams/stream-definition.js";

/** One validation problem, as stored in `etl.rejects.issues`. */
export interface RowIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/**
 * A row that failed validation: the raw value as served, why, and the values its request implied
 * (CDRs: `direction`; stored in `etl.rejects.implied`), which the raw row does not carry, so a
 * replay can load it.
 */
export interface RejectedRow {
  readonly raw: unknown;
  readonly issues: readonly RowIssue[];
  readonly implied?: Readonly<Record<string, string>>;
}

/** What a batch of raw rows became. */
export interface ParsedRows {
  readonly rows: LoadRow[];
  readonly rejects: RejectedRow[];
}

/** Validates one raw row; never throws for bad data (a `toRow` that throws makes a reject too). */
export function parseRow(
  stream: StreamDefinition,
  raw: unknown,
  implied: Readonly<Record<string, string>>,
): { ok: true; row: LoadRow } | { ok: false; reject: RejectedRow } {
  const withImplied = Object.keys(implied).length > 0 ? { implied } : {};
  const result = stream.schema.safeParse(raw);
  if (!result.success) {
    return { ok: false, reject: { raw, issues: result.error.issues.map(toRowIssue), ...withImplied } };
  }
  try {
    return { ok: true, row: toLoadRow(stream, result.data, implied) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reject: { raw, issues: [{ path: "", code: "mapping", message }], ...withImplied } };
  }
}

/** Validates the rows of one request (whose `implied` values apply to every row) and appends to `into`. */
export function parseRows(
  stream: StreamDefinition,
  rawRows: readonly unknown[],
  implied: Readonly<Record<string, string>>,
  into: ParsedRows = { rows: [], rejects: [] },
): ParsedRows {
  for (const raw of rawRows) {
    const parsed = parseRow(stream, raw, implied);
    if (parsed.ok) into.rows.push(parsed.row);
    else into.rejects.push(parsed.reject);
  }
  return into;
}

function toRowIssue(issue: z.core.$ZodIssue): RowIssue {
  return { path: issue.path.map(String).join("."), code: issue.code, message: issue.message };
}
