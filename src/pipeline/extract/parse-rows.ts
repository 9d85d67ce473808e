/**
 * Validation of raw rows at the trust boundary: each row is checked with its stream's zod schema;
 * a valid row becomes a LoadRow (typed columns plus the fields the schema does not know, for
 * `_extra`), an invalid one a reject with the raw JSON and the zod issues. The rows come in
 * distinct (the extraction keeps one copy per row identity), so nothing here collapses them.
 */
import type { z } from "zod";
import type { KnownSecrets } from "../../core/known-secrets.js";
import { type LoadRow, toLoadRow } from "../../streams/load-row.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import type { RowIssue } from "./row-issue.js";
import { misfitOf } from "./row-misfits.js";

export type { RowIssue } from "./row-issue.js";

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

/** What a batch of raw rows became; `children` holds the rows of the stream's child tables by name. */
export interface ParsedRows {
  readonly rows: LoadRow[];
  readonly rejects: RejectedRow[];
  readonly children: Map<string, LoadRow[]>;
}

/** An empty ParsedRows to append to. */
export function emptyParsedRows(): ParsedRows {
  return { rows: [], rejects: [], children: new Map() };
}

/**
 * Validates one raw row; never throws for bad data (a `toRow` that throws makes a reject too). What
 * it gives back holds no secret: a reject's raw row and issues and a row's `_extra` are masked with
 * `secrets` (credential-named fields, and every secret the run knows by value), a row's typed
 * columns are cleared of the run's own keys (never of values learnt from the platform), and the
 * values of the stream's own credential fields (`secretFields`) are learnt first.
 */
export function parseRow(
  stream: StreamDefinition,
  raw: unknown,
  implied: Readonly<Record<string, string>>,
  secrets: KnownSecrets,
):
  | { ok: true; row: LoadRow; children: readonly { name: string; rows: LoadRow[] }[] }
  | { ok: false; reject: RejectedRow } {
  rememberSecretFields(stream, raw, secrets);
  const schema = stream.schemaFor?.(implied) ?? stream.schema;
  const result = schema.safeParse(raw);
  if (!result.success) {
    return {
      ok: false,
      reject: {
        raw: secrets.mask(raw),
        issues: secrets.mask(result.error.issues.map(toRowIssue)),
        ...impliedOf(implied),
      },
    };
  }
  try {
    const row = maskLoadRow(toLoadRow({ schema, columns: stream.columns }, result.data, implied), secrets);
    const unplaced = nullPlacingColumn(stream, row);
    if (unplaced !== undefined) {
      return {
        ok: false,
        reject: {
          raw: secrets.mask(raw),
          issues: [
            {
              path: unplaced,
              code: "null_key",
              message: `${unplaced} is null: a ${unplaced === stream.table.windowColumn ? "window" : "key"} column must never be null`,
            },
          ],
          ...impliedOf(implied),
        },
      };
    }
    const children = childRowsOf(stream, result.data, implied, secrets);
    const misfit = misfitOf(stream, row, children);
    if (misfit !== null) {
      const issue = { ...misfit, message: secrets.maskText(misfit.message) };
      return { ok: false, reject: { raw: secrets.mask(raw), issues: [issue], ...impliedOf(implied) } };
    }
    return { ok: true, row, children };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      reject: {
        raw: secrets.mask(raw),
        issues: [{ path: "", code: "mapping", message: secrets.maskText(message) }],
        ...impliedOf(implied),
      },
    };
  }
}

/** No child rows: one array shared by every row of a stream without child tables. */
const NO_CHILDREN: readonly { name: string; rows: LoadRow[] }[] = Object.freeze([]);

/** The rows of the stream's child tables in a validated row, masked like the row itself. */
function childRowsOf(
  stream: StreamDefinition,
  data: unknown,
  implied: Readonly<Record<string, string>>,
  secrets: KnownSecrets,
): readonly { name: string; rows: LoadRow[] }[] {
  if (stream.children === undefined || stream.children.length === 0) return NO_CHILDREN;
  return stream.children.map((child) => ({
    name: child.name,
    rows: child
      .rows(data as never, implied)
      .map((c) => maskLoadRow(toLoadRow(child, c.row, c.implied), secrets)),
  }));
}

/** A reject's `implied` field: the request's implied values, left out when it implies none. */
function impliedOf(implied: Readonly<Record<string, string>>): {
  implied?: Readonly<Record<string, string>>;
} {
  return Object.keys(implied).length > 0 ? { implied } : {};
}

/** The first key or window column that is null in `row`, if any (a loop: this runs for every row). */
function nullPlacingColumn(stream: StreamDefinition, row: LoadRow): string | undefined {
  for (const column of placingColumns(stream)) if (row.columns[column] === null) return column;
  return undefined;
}

/**
 * The columns that place a row: its key and its window column. A row without one of them cannot
 * be merged or put in a window (a CDR whose `date` turned null would load undated and settle), so
 * it is a reject, whatever the schema allows.
 */
function placingColumns(stream: StreamDefinition): readonly string[] {
  let columns = placingColumnsCache.get(stream);
  if (columns === undefined) {
    const { key, windowColumn } = stream.table;
    columns = [...(key ?? []), ...(windowColumn === undefined ? [] : [windowColumn])];
    placingColumnsCache.set(stream, columns);
  }
  return columns;
}

/** Each stream's placing columns, computed once (this runs for every row of every load). */
const placingColumnsCache = new WeakMap<StreamDefinition, readonly string[]>();

/**
 * Validates the rows of one request (whose `implied` values apply to every row) and appends to
 * `into`. `refuse`, when given, may turn a valid row into a reject (the issue it returns: a row
 * outside the window it was read for).
 */
export function parseRows(
  stream: StreamDefinition,
  rawRows: readonly unknown[],
  implied: Readonly<Record<string, string>>,
  secrets: KnownSecrets,
  into: ParsedRows = emptyParsedRows(),
  refuse?: (row: LoadRow) => RowIssue | null,
): ParsedRows {
  // Every row's declared secrets first: a token seen in a later row is masked in an earlier one too.
  for (const raw of rawRows) rememberSecretFields(stream, raw, secrets);
  for (const raw of rawRows) {
    const parsed = parseRow(stream, raw, implied, secrets);
    if (!parsed.ok) {
      into.rejects.push(parsed.reject);
      continue;
    }
    const refusal = refuse?.(parsed.row) ?? null;
    if (refusal !== null) {
      into.rejects.push({
        raw: secrets.mask(raw),
        issues: [refusal],
        ...(Object.keys(implied).length > 0 ? { implied } : {}),
      });
      continue;
    }
    into.rows.push(parsed.row);
    for (const child of parsed.children) {
      const rows = into.children.get(child.name) ?? [];
      for (const row of child.rows) rows.push(row);
      into.children.set(child.name, rows);
    }
  }
  return into;
}

/** Learns the values of the stream's declared credential fields (a trunk's `access_token`) as secrets. */
function rememberSecretFields(stream: StreamDefinition, raw: unknown, secrets: KnownSecrets): void {
  if (!stream.secretFields?.length || raw === null || typeof raw !== "object" || Array.isArray(raw)) return;
  for (const field of stream.secretFields) {
    const value = (raw as Record<string, unknown>)[field];
    if (typeof value === "string") secrets.learn(value);
  }
}

/**
 * A LoadRow with `_extra` masked (credential-named fields, known secrets) and its typed columns
 * cleared of the run's own keys only (see KnownSecrets.maskColumns); the same row when there is
 * nothing to mask.
 */
function maskLoadRow(row: LoadRow, secrets: KnownSecrets): LoadRow {
  const extra = row.extra === null ? null : secrets.mask(row.extra);
  const columns = secrets.maskColumns(row.columns);
  return extra === row.extra && columns === row.columns ? row : { columns, extra };
}

function toRowIssue(issue: z.core.$ZodIssue): RowIssue {
  return { path: issue.path.map(String).join("."), code: issue.code, message: issue.message };
}
