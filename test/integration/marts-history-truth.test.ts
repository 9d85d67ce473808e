import { type Kysely, sql } from "kysely";
import { biReaderRoleFor, databaseOfUrl } from "../../src/warehouse/admin/bi-reader-role.js";
import type { Database } from "../../src/warehouse/connection/database.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts } from "./marts-build.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 35 item 3, history BI can read: a sandbox world's numbers, trunks and sub-accounts are
 * loaded and the marts built and published; each history mart's current versions equal the
 * sandbox's truth. Then a trunk is relabelled, a sub-account renamed and a number's fee raised in
 * the landing tables (as the next replace_all load of a changed list would leave them) and the
 * marts built again: each changed item has its first version (the truth's values) closed exactly
 * where its second (the new values) starts, every other item keeps one open version, validity is
 * timestamptz, and the BI role may read all three marts.
 */
const ACCOUNT = "master";
it.override({
  sandboxOptions: {
    seed: 35,
    start: "2026-07-01",
    days: 5,
    accounts: 2,
    callsPerDay: 5,
    now: "2026-07-06T06:00:00Z",
  },
});

const STREAMS = ["numbers", "sip_trunks", "sub_accounts"];
const MARTS = ["dim_numbers_history", "dim_trunks_history", "dim_sub_accounts_history"] as const;

interface Version {
  readonly id: string;
  readonly value: string;
  readonly valid_from: Date;
  readonly valid_to: Date | null;
  readonly is_current: boolean;
}

/** The versions of `mart` for the master account (sub-accounts: all), as id and the one value the test changes. */
async function versions(db: Kysely<Database>, mart: (typeof MARTS)[number]): Promise<Version[]> {
  const pick = {
    dim_numbers_history: sql`number_id::text AS id, monthly_fee_usd::numeric::text AS value`,
    dim_trunks_history: sql`trunk_id::text AS id, trunk_label AS value`,
    dim_sub_accounts_history: sql`sub_account_id::text AS id, company_name AS value`,
  }[mart];
  const where = mart === "dim_sub_accounts_history" ? sql`true` : sql`account = ${ACCOUNT}`;
  const { rows } = await sql<Version>`
    SELECT ${pick}, valid_from, valid_to, is_current
    FROM analytics_marts.${sql.table(mart)} WHERE ${where} ORDER BY 1, valid_from`.execute(db);
  return rows;
}

/** `{id: value}` of a truth list, with the value the history mart's `value` column holds. */
function truthValues(records: Record<string, unknown>[], field: string): Map<string, string> {
  return new Map(records.map((r) => [String(r.id), r[field] === null ? "" : String(r[field])]));
}

const fee = (value: string) => Number(value).toFixed(4);

describe("history marts against the sandbox's truth", () => {
  it("current versions equal the truth; a change closes the old version where the new one starts; BI reads them", {
    timeout: 900_000,
  }, async ({ sandbox, database }) => {
    const db = database.warehouse.db;
    const base = sandboxConfig(sandbox);
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: STREAMS })) };
    const run = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(run.streams.filter((s) => s.errors.length > 0)).toEqual([]);
    await buildMarts(database.warehouse, []);

    const numbers = truthValues(await truthRecords(sandbox, "numbers", ACCOUNT), "monthly_fee");
    const trunks = truthValues(await truthRecords(sandbox, "sip_trunks", ACCOUNT), "label");
    const subs = new Map<string, string>();
    for (const account of sandbox.world.accounts)
      for (const [id, name] of truthValues(await truthRecords(sandbox, "sub_accounts", account.name), "name"))
        subs.set(id, name);
    for (const truth of [numbers, trunks, subs]) expect(truth.size).toBeGreaterThan(0);

    const current = async (mart: (typeof MARTS)[number], norm = (v: string) => v) =>
      new Map((await versions(db, mart)).filter((v) => v.is_current).map((v) => [v.id, norm(v.value ?? "")]));
    const truthFees = new Map([...numbers].map(([id, v]) => [id, fee(v)]));
    expect(await current("dim_numbers_history", fee)).toEqual(truthFees);
    expect(await current("dim_trunks_history")).toEqual(trunks);
    expect(await current("dim_sub_accounts_history")).toEqual(subs);

    const [numberId] = [...numbers.keys()];
    const [trunkId] = [...trunks.keys()];
    const [subId] = [...subs.keys()];
    await sql`UPDATE platform.numbers SET monthly_fee = monthly_fee + 1 WHERE _account = ${ACCOUNT} AND id = ${Number(numberId)}`.execute(
      db,
    );
    await sql`UPDATE platform.sip_trunks SET label = 'relabelled by the test' WHERE _account = ${ACCOUNT} AND id = ${Number(trunkId)}`.execute(
      db,
    );
    await sql`UPDATE platform.sub_accounts SET name = 'Renamed Company' WHERE id = ${Number(subId)}`.execute(
      db,
    );
    const changedAt = Date.now();
    await buildMarts(database.warehouse, []);

    const changes = [
      {
        mart: "dim_numbers_history",
        id: numberId!,
        before: truthFees.get(numberId!)!,
        after: fee(String(Number(numbers.get(numberId!)) + 1)),
        norm: fee,
      },
      {
        mart: "dim_trunks_history",
        id: trunkId!,
        before: trunks.get(trunkId!)!,
        after: "relabelled by the test",
        norm: (v: string) => v,
      },
      {
        mart: "dim_sub_accounts_history",
        id: subId!,
        before: subs.get(subId!)!,
        after: "Renamed Company",
        norm: (v: string) => v,
      },
    ] as const;
    for (const change of changes) {
      const all = await versions(db, change.mart);
      const mine = all.filter((v) => v.id === change.id);
      expect(
        mine.map((v) => [change.norm(v.value ?? ""), v.is_current]),
        change.mart,
      ).toEqual([
        [change.before, false],
        [change.after, true],
      ]);
      expect(mine[0]!.valid_to?.getTime(), change.mart).toBe(mine[1]!.valid_from.getTime());
      expect(mine[1]!.valid_from.getTime(), change.mart).toBeGreaterThanOrEqual(changedAt - 1_000);
      expect(mine[1]!.valid_to).toBeNull();
      // Every other item: one version, still open.
      const others = all.filter((v) => v.id !== change.id);
      expect(
        others.every((v) => v.is_current && v.valid_to === null),
        change.mart,
      ).toBe(true);
      expect(new Set(others.map((v) => v.id)).size, change.mart).toBe(others.length);
    }

    const role = biReaderRoleFor(databaseOfUrl(database.url));
    const { rows } = await sql<{ mart: string; readable: boolean; validity: string }>`
      SELECT c.table_name AS mart,
             has_table_privilege(${role}, format('analytics_marts.%I', c.table_name), 'SELECT') AS readable,
             string_agg(c.data_type, ',' ORDER BY c.column_name) AS validity
      FROM information_schema.columns AS c
      WHERE c.table_schema = 'analytics_marts' AND c.table_name = ANY(${[...MARTS]})
        AND c.column_name IN ('valid_from', 'valid_to')
      GROUP BY c.table_name ORDER BY 1`.execute(db);
    expect(rows).toEqual(
      [...MARTS].sort().map((mart) => ({
        mart,
        readable: true,
        validity: "timestamp with time zone,timestamp with time zone",
      })),
    );
  });
});
