/**
 * The warehouse's side of the re-count of settled windows: which settled windows there are and when
 * each was last checked, how many rows the warehouse holds in one (per request of it: a CDR window
 * per direction), and what each check found (`etl.window_counts`, migration 0025).
 */
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type pg from "pg";
import type { DateWindow } from "../../core/slices.js";
import { sliceLabel } from "../../core/slices.js";
import type { Warehouse } from "../connection/connect-warehouse.js";
import type { Database } from "../connection/database.js";
import type { LandingTable } from "../connection/landing-table.js";
import { reopenWindowQuery } from "./stream-state.js";
import { windowPredicate } from "./window-contents.js";

/** A settled window and when the re-count last checked it (null: never). */
export interface SettledWindow {
  readonly window: DateWindow;
  readonly checkedAt: Date | null;
}

/**
 * The settled windows of (account, stream) that overlap [`from`, `to`) (UTC days, `to`
 * exclusive), the windows checked longest ago (never checked first) first, then oldest first.
 */
export async function settledWindowsToCount(
  db: Kysely<Database>,
  input: { readonly account: string; readonly stream: string; readonly from: string; readonly to: string },
): Promise<SettledWindow[]> {
  const rows = await db
    .selectFrom("etl.stream_state as s")
    .leftJoin(
      (eb) =>
        eb
          .selectFrom("etl.window_counts")
          .select(["window_start", (c) => c.fn.min("checked_at").as("checked_at")])
          .where("account", "=", input.account)
          .where("stream", "=", input.stream)
          .groupBy("window_start")
          .as("c"),
      (join) => join.onRef("c.window_start", "=", "s.window_start"),
    )
    .select(["s.window_start", "s.window_end", "c.checked_at"])
    .where("s.account", "=", input.account)
    .where("s.stream", "=", input.stream)
    .where("s.window_end", ">", input.from)
    .where("s.window_start", "<", input.to)
    .orderBy(sql`c.checked_at NULLS FIRST`)
    .orderBy("s.window_start")
    .execute();
  return rows.map((row) => ({
    window: { start: row.window_start, end: row.window_end },
    checkedAt: row.checked_at === null ? null : new Date(row.checked_at as Date | string),
  }));
}

/** One request of a window the warehouse counts: its name and the landing columns its rows have. */
export interface CountedPart {
  readonly part: string;
  readonly columns: Readonly<Record<string, string>>;
}

/**
 * The rows the warehouse holds for each part of `window` of (account, stream): its landing rows
 * whose window column falls in the window (one index range scan of `(_account, <window column>)`,
 * in the window's month partition), with the part's column values, plus the window's pending
 * rejects the part's request implied (a rejected row was listed by the platform too).
 */
export async function storedRowsByPart(
  db: Kysely<Database>,
  input: {
    readonly table: LandingTable;
    readonly stream: string;
    readonly account: string;
    readonly window: DateWindow;
    readonly parts: readonly CountedPart[];
  },
): Promise<Map<string, number>> {
  const { table, window } = input;
  const inWindow = sql.raw(windowPredicate(table, window.start, window.end));
  const label = sliceLabel({ kind: "window", window });
  const counts = new Map<string, number>();
  for (const { part, columns } of input.parts) {
    const entries = Object.entries(columns);
    const sameColumns = entries.map(([column, value]) => sql` AND ${sql.ref(column)}::text = ${value}`);
    const landed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table.name)}
      WHERE _account = ${input.account} AND ${inWindow}${entries.length === 0 ? sql`` : sql.join(sameColumns, sql``)}`.execute(
      db,
    );
    const implied = entries.length === 0 ? sql`` : sql` AND implied @> ${JSON.stringify(columns)}::jsonb`;
    const rejected = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.rejects
      WHERE account = ${input.account} AND stream = ${input.stream} AND slice = ${label}
        AND replayed_at IS NULL${implied}`.execute(db);
    counts.set(part, (landed.rows[0]?.n ?? 0) + (rejected.rows[0]?.n ?? 0));
  }
  return counts;
}

/** What one part of a window counted: the platform's total and the warehouse's rows. */
export interface PartCount {
  readonly part: string;
  readonly platform: number;
  readonly warehouse: number;
}

/** What a run's re-count of one window of (account, stream) found, part by part. */
export interface WindowCount {
  readonly account: string;
  readonly stream: string;
  readonly window: DateWindow;
  readonly runId: number;
  readonly counts: readonly PartCount[];
}

/** The upsert recording what a re-count of `window` found, compiled for a transaction's client. */
export function recordWindowCountsQuery(db: Kysely<Database>, input: WindowCount): CompiledQuery {
  return db
    .insertInto("etl.window_counts")
    .values(
      input.counts.map((c) => ({
        account: input.account,
        stream: input.stream,
        window_start: input.window.start,
        window_end: input.window.end,
        part: c.part,
        platform_total: c.platform,
        warehouse_rows: c.warehouse,
        run_id: input.runId,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["account", "stream", "window_start", "part"]).doUpdateSet({
        window_end: (eb) => eb.ref("excluded.window_end"),
        platform_total: (eb) => eb.ref("excluded.platform_total"),
        warehouse_rows: (eb) => eb.ref("excluded.warehouse_rows"),
        run_id: (eb) => eb.ref("excluded.run_id"),
        checked_at: sql`now()`,
      }),
    )
    .compile();
}

/**
 * Records what a re-count of `window` found and, when it differs (`reopen`), opens the window
 * again in the same transaction (remembered as re-opened: see reopenWindowQuery), so the run's
 * plan re-reads it. `fence` runs last, before the commit: a run that lost the stream's lock
 * changes nothing.
 */
export async function recordWindowCount(
  warehouse: Warehouse,
  input: WindowCount & { readonly reopen?: { readonly fewerOnPlatform: boolean } },
  fence?: (client: pg.ClientBase) => Promise<void>,
): Promise<void> {
  const client = await warehouse.pool.connect();
  try {
    await client.query("BEGIN");
    const queries = [
      recordWindowCountsQuery(warehouse.db, input),
      ...(input.reopen === undefined
        ? []
        : [
            reopenWindowQuery(warehouse.db, {
              ...input,
              reason: "recount",
              fewerOnPlatform: input.reopen.fewerOnPlatform,
            }),
          ]),
    ];
    for (const query of queries) await client.query(query.sql, [...query.parameters]);
    await fence?.(client);
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    const rolledBack = await client.query("ROLLBACK").then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
    throw error;
  }
}

/**
 * What one run's re-count of one (account, stream) did, as `etl.run_streams.recount` keeps it:
 * windows checked, requests sent, the windows that differed (each re-opened), and why it stopped
 * early, if it did.
 */
export interface RecountRecord {
  readonly windows: number;
  readonly requests: number;
  readonly differing: readonly { readonly window: string; readonly counts: readonly PartCount[] }[];
  readonly stopped?: string;
}
