import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { swapFaults, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 36 item 4, schema contracts (`stream_options.<stream>.schema_contract`), end to end through
 * the CLI: the sandbox starts sending a new top-level field of `cdrs` from a day on (and later
 * changes its type), and each contract's outcome is compared with the sandbox's truth export, which
 * carries the field as served (the oracle never goes through the loader's parsing).
 */
const NOW = "2026-08-05T00:00:00Z";
const SANDBOX = { seed: 36, start: "2026-08-01", days: 4, accounts: 1, callsPerDay: 60, now: NOW } as const;
const FIELD = "carrier_score";
/** The windows whose rows carry the added field. */
const WINDOW = "2026-08-0[234]\\.\\.2026-08-0[345]";
const ADDED = { stream: "cdrs", field: FIELD, change: "add", type: "number", from: "2026-08-02" } as const;

type Rig = { sandbox: RunningSandbox; warehouse: Warehouse; env: Record<string, string>; dir: string };

/** A CLI set-up reading only `cdrs` under `contract` (none: the default). */
async function rigOf(
  sandbox: RunningSandbox,
  db: { url: string; warehouse: Warehouse },
  contract?: string,
): Promise<Rig> {
  const dir = await mkdtemp(path.join(tmpdir(), "schema-contract-"));
  const options =
    contract === undefined ? "" : `stream_options:\n  cdrs:\n    schema_contract: ${contract}\n`;
  await writeFile(path.join(dir, "telecom-etl.yaml"), `streams: [cdrs]\n${options}`);
  const env = {
    TELECOM_API_URL: sandbox.url,
    TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
    DATABASE_URL: db.url,
    TELECOM_ETL_START_DATE: "2026-08-01",
    TELECOM_ETL_NOW: NOW,
    TELECOM_ETL_CONFIG: path.join(dir, "telecom-etl.yaml"),
  };
  return { sandbox, warehouse: db.warehouse, env, dir };
}

/** The truth's CDRs (all four days), keyed `direction/uuid`. */
async function truthCdrs(sandbox: RunningSandbox): Promise<Map<string, Record<string, unknown>>> {
  const account = sandbox.world.accounts[0]!.name;
  const records = await truthRecords(sandbox, "cdrs", account, { from: "2026-08-01", to: "2026-08-04" });
  return new Map(records.map((r) => [`${r.direction}/${r.uuid}`, r]));
}

async function count(warehouse: Warehouse, query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  return (await query.execute(warehouse.db)).rows[0]?.n ?? -1;
}

describe("schema contracts on a platform that adds a field", () => {
  it("evolve: a typed column holding the truth's values, reported; a re-run converges; a changed type is a reject", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const rig = await rigOf(sandbox, await createDatabase(), "evolve");
    try {
      await swapFaults(sandbox, { base: "none", drift: [ADDED] });
      const first = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(first.code, first.stderr.slice(-2000)).toBe(0);
      // Which window's slice adds it first is a race between the slices carrying it (read in parallel).
      expect(first.stdout).toMatch(
        new RegExp(
          `new field from the platform: cdrs\\.${FIELD} \\(number, first seen in window ${WINDOW}\\): added as column platform\\.cdrs\\.${FIELD} \\(numeric\\) by schema_contract evolve`,
        ),
      );
      await expectColumnEqualsTruth(rig);
      const runId = await lastRunId(rig.warehouse);
      const changes = await sql<Record<string, unknown>>`
        SELECT stream, field, column_type, first_run::int AS first_run, first_window FROM etl.schema_changes`.execute(
        rig.warehouse.db,
      );
      expect(changes.rows).toEqual([
        {
          stream: "cdrs",
          field: FIELD,
          column_type: "numeric",
          first_run: runId,
          first_window: expect.stringMatching(new RegExp(`^${WINDOW}$`)),
        },
      ]);
      await expectReported(rig, runId);

      // Again: no second column, no second record, the same rows and values.
      const rows = await count(
        rig.warehouse,
        sql<{ n: number }>`SELECT count(*)::int AS n FROM platform.cdrs`,
      );
      const again = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(again.code, again.stderr.slice(-2000)).toBe(0);
      expect(again.stdout).not.toContain("new field from the platform");
      expect(await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs`)).toBe(rows);
      expect(await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM etl.schema_changes`)).toBe(1);
      await expectColumnEqualsTruth(rig);

      // The platform now sends the field as a string from 2026-08-04 on: those rows are rejected.
      await swapFaults(sandbox, {
        base: "none",
        drift: [ADDED, { stream: "cdrs", field: FIELD, change: "stringify", from: "2026-08-04" }],
      });
      const changed = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(changed.code, changed.stderr.slice(-2000)).toBe(1);
      const retyped = [...(await truthCdrs(sandbox)).values()].filter((r) => typeof r[FIELD] === "string");
      expect(retyped.length).toBeGreaterThan(10);
      const rejects = await sql<{ path: string; message: string; raw: string }>`
        SELECT i ->> 'path' AS path, i ->> 'message' AS message, raw ->> ${FIELD} AS raw
        FROM etl.rejects, jsonb_array_elements(issues) AS i
        WHERE stream = 'cdrs' AND replayed_at IS NULL`.execute(rig.warehouse.db);
      expect(rejects.rows.map((r) => r.raw).sort()).toEqual(retyped.map((r) => String(r[FIELD])).sort());
      for (const reject of rejects.rows) {
        expect(reject.path).toBe(FIELD);
        expect(reject.message).toBe(
          `${FIELD}: expected a JSON number (column platform.cdrs.${FIELD} is numeric, added by schema_contract evolve), got a string: a changed type is rejected, never cast`,
        );
      }
      const type = await sql<{ t: string }>`
        SELECT data_type AS t FROM information_schema.columns
        WHERE table_schema = 'platform' AND table_name = 'cdrs' AND column_name = ${FIELD}`.execute(
        rig.warehouse.db,
      );
      expect(type.rows).toEqual([{ t: "numeric" }]);
    } finally {
      await rm(rig.dir, { recursive: true, force: true });
    }
  });

  it("evolve does not hide a rename: a declared field gone while a new one appears is still held as a drift", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({ ...SANDBOX, callsPerDay: 300 });
    const rig = await rigOf(sandbox, await createDatabase(), "evolve");
    try {
      const clean = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(clean.code, clean.stderr.slice(-2000)).toBe(0);
      const forwarded = [...(await truthCdrs(sandbox)).values()].filter((r) => r.forward_fee !== undefined);
      expect(forwarded.length).toBeGreaterThan(20);
      await swapFaults(sandbox, {
        base: "none",
        drift: [{ stream: "cdrs", field: "forward_fee", change: "rename", to: "fwd_fee" }],
      });
      const renamed = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(renamed.code, renamed.stderr.slice(-2000)).toBe(1);
      expect(renamed.stdout).toMatch(
        /forward_fee missing \(null in all [\d,]+ rows, set in [\d.]+% before\), fwd_fee new: renamed\?/,
      );
      const held = await count(
        rig.warehouse,
        sql`SELECT count(*)::int AS n FROM etl.run_slices WHERE stream = 'cdrs' AND hold_reason = 'drift'`,
      );
      expect(held).toBeGreaterThan(0);
    } finally {
      await rm(rig.dir, { recursive: true, force: true });
    }
  });

  it("freeze: every row carrying the field is a reject naming it, kept as sent; the days before load", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    const rig = await rigOf(sandbox, await createDatabase(), "freeze");
    try {
      await swapFaults(sandbox, { base: "none", drift: [ADDED] });
      const result = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(result.code, result.stderr.slice(-2000)).toBe(1);
      const truth = [...(await truthCdrs(sandbox)).values()];
      const carrying = truth.filter((r) => FIELD in r);
      expect(carrying.length).toBeGreaterThan(10);
      const rejects = await sql<{ path: string; message: string; raw: Record<string, unknown> }>`
        SELECT issues -> 0 ->> 'path' AS path, issues -> 0 ->> 'message' AS message, raw
        FROM etl.rejects WHERE stream = 'cdrs'`.execute(rig.warehouse.db);
      expect(rejects.rows.map((r) => `${r.raw.uuid}:${r.raw[FIELD]}`).sort()).toEqual(
        carrying.map((r) => `${r.uuid}:${r[FIELD]}`).sort(),
      );
      expect(new Set(rejects.rows.map((r) => r.message))).toEqual(
        new Set([
          `field "${FIELD}" is not in the schema of stream cdrs, whose schema_contract is freeze: map it in packages/platform/src/, or set stream_options.cdrs.schema_contract to evolve or discard`,
        ]),
      );
      // The first day (no field yet) loaded whole; nothing carries the field; no column was added.
      const before = truth.filter((r) => !(FIELD in r)).length;
      expect(await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs`)).toBe(before);
      expect(
        await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs WHERE _extra ? ${FIELD}`),
      ).toBe(0);
      expect(await columnCount(rig.warehouse)).toBe(0);
      // A replay keeps them pending: their field is still unknown (the schema was not changed).
      const replay = await runCli(["rejects", "replay", "--stream", "cdrs"], { env: rig.env, cwd: rig.dir });
      expect(replay.stdout).toContain(
        `default/cdrs: 0 of ${carrying.length} loaded, ${carrying.length} still rejected`,
      );
      expect(await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs`)).toBe(before);
    } finally {
      await rm(rig.dir, { recursive: true, force: true });
    }
  });

  it("discard: the field is dropped from every row, counted and reported; the default keeps it in _extra", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox(SANDBOX);
    await swapFaults(sandbox, { base: "none", drift: [ADDED] });
    const truth = [...(await truthCdrs(sandbox)).values()];
    const carrying = truth.filter((r) => FIELD in r).length;
    expect(carrying).toBeGreaterThan(10);
    for (const contract of ["discard", undefined]) {
      const rig = await rigOf(sandbox, await createDatabase(), contract);
      try {
        const result = await runCli(["run"], { env: rig.env, cwd: rig.dir });
        expect(result.code, result.stderr.slice(-2000)).toBe(0);
        const inExtra = await count(
          rig.warehouse,
          sql`SELECT count(*)::int AS n FROM platform.cdrs WHERE _extra ? ${FIELD}`,
        );
        const discarded = await count(
          rig.warehouse,
          sql`SELECT coalesce(sum((quality ->> 'unknown_fields_discarded')::int), 0)::int AS n FROM etl.run_slices`,
        );
        expect(await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs`)).toBe(
          truth.length,
        );
        expect(await columnCount(rig.warehouse)).toBe(0);
        const schema = await runCli(["schema"], { env: rig.env, cwd: rig.dir });
        const status = await runCli(["status"], { env: rig.env, cwd: rig.dir });
        expect(status.stdout).toMatch(
          new RegExp(
            `fields not in the schema \\(${contract === undefined ? "kept in _extra" : `schema_contract ${contract}`}; see telecom-etl schema\\): ${FIELD} \\(number, since run \\d+\\)`,
          ),
        );
        expect(schema.stdout).toMatch(new RegExp(`cdrs\\.${FIELD} {2}number {2}first seen run \\d+`));
        if (contract === "discard") {
          expect([inExtra, discarded]).toEqual([0, carrying]);
          expect(result.stdout).toContain(
            `rows whose unknown fields were discarded (schema_contract discard): ${carrying}`,
          );
          expect(result.stdout).toContain(
            "discarded (schema_contract discard: dropped from every row, not stored)",
          );
          expect(schema.stdout).toContain("schema contracts: cdrs discard");
        } else {
          expect([inExtra, discarded]).toEqual([carrying, 0]);
          expect(result.stdout).toMatch(
            new RegExp(`cdrs\\.${FIELD} \\(number, first seen in window ${WINDOW}\\): kept in _extra`),
          );
        }
      } finally {
        await rm(rig.dir, { recursive: true, force: true });
      }
    }
  });
});

/** The added column of platform.cdrs and its month partitions (0 when absent). */
async function columnCount(warehouse: Warehouse): Promise<number> {
  return count(
    warehouse,
    sql`SELECT count(*)::int AS n FROM information_schema.columns
        WHERE table_schema = 'platform' AND (table_name = 'cdrs' OR table_name LIKE 'cdrs\\_%') AND column_name = ${FIELD}`,
  );
}

async function lastRunId(warehouse: Warehouse): Promise<number> {
  return count(warehouse, sql`SELECT max(id)::int AS n FROM etl.runs`);
}

/** Every CDR's added column equals the truth's field (null where the truth has none), and `_extra` never holds it. */
async function expectColumnEqualsTruth(rig: Rig): Promise<void> {
  const truth = await truthCdrs(rig.sandbox);
  const landed = await sql<{ key: string; value: string | null }>`
    SELECT direction || '/' || uuid AS key, ${sql.ref(FIELD)}::text AS value FROM platform.cdrs`.execute(
    rig.warehouse.db,
  );
  expect(landed.rows.length).toBe(truth.size);
  const expected = Object.fromEntries(
    [...truth.entries()].map(([key, r]) => [key, r[FIELD] === undefined ? null : String(r[FIELD])]),
  );
  expect(Object.fromEntries(landed.rows.map((r) => [r.key, r.value]))).toEqual(expected);
  expect(Object.values(expected).filter((v) => v !== null).length).toBeGreaterThan(10);
  expect(
    await count(rig.warehouse, sql`SELECT count(*)::int AS n FROM platform.cdrs WHERE _extra ? ${FIELD}`),
  ).toBe(0);
  // The partitioned table's months take the column too (partitioned by month of `date`).
  const partitions = await count(
    rig.warehouse,
    sql`SELECT count(*)::int AS n FROM pg_inherits i JOIN pg_attribute a ON a.attrelid = i.inhrelid
        WHERE i.inhparent = 'platform.cdrs'::regclass AND a.attname = ${FIELD} AND NOT a.attisdropped`,
  );
  expect(partitions).toBeGreaterThan(0);
}

/** `runs show`, `schema` and the night's page name the column the run added. */
async function expectReported(rig: Rig, runId: number): Promise<void> {
  const line = new RegExp(
    `cdrs\\.${FIELD} {2}numeric {2}added by run ${runId} at \\S+ \\(account default, window ${WINDOW}\\)`,
  );
  const listed = await runCli(["runs", "list"], { env: rig.env, cwd: rig.dir });
  expect(listed.stdout).toMatch(
    new RegExp(`#${runId} .*  1 column\\(s\\) added \\(schema_contract evolve\\)`),
  );
  const shown = await runCli(["runs", "show", String(runId)], { env: rig.env, cwd: rig.dir });
  expect(shown.stdout).toContain("columns added in this run by schema_contract evolve");
  expect(shown.stdout).toMatch(line);
  const schema = await runCli(["schema"], { env: rig.env, cwd: rig.dir });
  expect(schema.stdout).toMatch(line);
  expect(schema.stdout).toContain("schema contracts: cdrs evolve");
  const columns = await runCli(["schema", "--columns", "--json"], { env: rig.env, cwd: rig.dir });
  expect(JSON.parse(columns.stdout)).toMatchObject([
    { stream: "cdrs", field: FIELD, columnType: "numeric", firstRun: runId },
  ]);
  const page = path.join(rig.dir, "night.html");
  const report = await runCli(["report", "--out", page], { env: rig.env, cwd: rig.dir });
  expect(report.code, report.stderr.slice(-2000)).toBe(0);
  const html = await readFile(page, "utf8");
  expect(html).toContain('data-schema-changes="1"');
  expect(html).toMatch(
    new RegExp(`<b>cdrs\\.${FIELD}</b> numeric, first sent to account default in window ${WINDOW}</li>`),
  );
}
