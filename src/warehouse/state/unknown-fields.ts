import { type Kysely, sql } from "kysely";
import type { Database } from "../connection/database.js";

/** JSON types a field's value can have (`etl.unknown_fields.example_type`). */
export const JSON_TYPES = ["string", "number", "boolean", "object", "array", "null"] as const;
/** A JSON type. */
export type JsonType = (typeof JSON_TYPES)[number];

/** A field not in the schema, as seen in one slice: the type of a value (the first non-null one) and how many rows carried it. */
export interface FieldSighting {
  readonly field: string;
  readonly exampleType: JsonType;
  readonly rows: number;
}

/** Where fields were seen: the run, the account, the stream and the window read. */
export interface SightingPlace {
  readonly runId: number;
  readonly account: string;
  readonly stream: string;
  readonly window: string;
}

/**
 * Records the unknown fields one slice saw in `etl.unknown_fields` (one statement, so two slices
 * seeing the same new field at once insert it once) and returns those no run had recorded before:
 * the ones this slice must report.
 */
export async function recordUnknownFields(
  db: Kysely<Database>,
  place: SightingPlace,
  fields: readonly FieldSighting[],
): Promise<FieldSighting[]> {
  if (fields.length === 0) return [];
  const rows = await db
    .insertInto("etl.unknown_fields")
    .values(
      fields.map((f) => ({
        stream: place.stream,
        field: f.field,
        first_seen_run: place.runId,
        first_seen_account: place.account,
        first_seen_window: place.window,
        last_seen_run: place.runId,
        example_type: f.exampleType,
        rows_seen: f.rows,
        accounts: [place.account],
      })),
    )
    .onConflict((oc) =>
      oc.columns(["stream", "field"]).doUpdateSet({
        last_seen_run: place.runId,
        last_seen_at: sql<Date>`now()`,
        rows_seen: sql<number>`etl.unknown_fields.rows_seen + excluded.rows_seen`,
        example_type: sql<string>`CASE WHEN etl.unknown_fields.example_type = 'null'
          THEN excluded.example_type ELSE etl.unknown_fields.example_type END`,
        accounts: sql<string[]>`CASE WHEN ${place.account} = ANY (etl.unknown_fields.accounts)
          THEN etl.unknown_fields.accounts ELSE etl.unknown_fields.accounts || excluded.accounts END`,
      }),
    )
    // xmax is 0 on a row this statement inserted, not on one it updated.
    .returning(["field", sql<boolean>`xmax = 0`.as("inserted")])
    .execute();
  const inserted = new Set(rows.filter((r) => r.inserted).map((r) => r.field));
  return fields.filter((f) => inserted.has(f.field));
}

/** One row of `etl.unknown_fields`, as `telecom-etl schema` and `status` show it. */
export interface UnknownField {
  readonly stream: string;
  readonly field: string;
  readonly exampleType: JsonType;
  readonly firstSeenRun: number | null;
  readonly firstSeenAt: Date;
  readonly firstSeenAccount: string;
  readonly firstSeenWindow: string;
  readonly lastSeenRun: number | null;
  readonly lastSeenAt: Date;
  readonly rowsSeen: number;
  readonly accounts: readonly string[];
}

/** The unknown fields recorded, by stream and field; only those first seen by `firstSeenRun` when given. */
export async function listUnknownFields(
  db: Kysely<Database>,
  filter: { readonly firstSeenRun?: number; readonly stream?: string } = {},
): Promise<UnknownField[]> {
  let query = db.selectFrom("etl.unknown_fields").selectAll().orderBy("stream").orderBy("field");
  if (filter.firstSeenRun !== undefined) query = query.where("first_seen_run", "=", filter.firstSeenRun);
  if (filter.stream !== undefined) query = query.where("stream", "=", filter.stream);
  const rows = await query.execute();
  return rows.map((r) => ({
    stream: r.stream,
    field: r.field,
    exampleType: r.example_type as JsonType,
    firstSeenRun: r.first_seen_run,
    firstSeenAt: new Date(r.first_seen_at),
    firstSeenAccount: r.first_seen_account,
    firstSeenWindow: r.first_seen_window,
    lastSeenRun: r.last_seen_run,
    lastSeenAt: new Date(r.last_seen_at),
    rowsSeen: Number(r.rows_seen),
    accounts: r.accounts,
  }));
}
