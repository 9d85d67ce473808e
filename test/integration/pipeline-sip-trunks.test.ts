import { sql } from "kysely";
import type { AccountConfig, EtlConfig } from "../../src/config/config.js";
import { formatRunSummary } from "../../src/pipeline/run/format-summary.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import {
  capturingLogger,
  expectSecretsNowhere,
  runAt,
  sandboxConfig,
  setSandboxClock,
  truthRecords,
} from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * SIP trunks as the platform lists them (`{"sip_trunks": [...] | null, "pagination"}`, summaries
 * with month-to-date totals): the landed rows equal the sandbox's truth, paged; a trunk's
 * `access_token` is in no column, no `_extra` and no log line; and a `"sip_trunks": null` answer
 * (an account without trunks) loads as an empty set with exit 0, the reason counted in the run's
 * records and summary and logged, so an operator sees why the table lost the account's trunks.
 */
it.override({
  sandboxOptions: { seed: 53, days: 6, accounts: 2, callsPerDay: 80, now: "2026-08-06T12:00:00Z" },
});

/** The master (and the first sub-account) reading only trunks and numbers, three trunks a page at most. */
function trunksConfig(sandbox: Parameters<typeof sandboxConfig>[0]): EtlConfig {
  const base = sandboxConfig(sandbox);
  return {
    ...base,
    perPage: 2,
    accounts: base.accounts.map((a): AccountConfig => ({ ...a, streams: ["sip_trunks", "numbers"] })),
  };
}

describe("sip_trunks stream", () => {
  it("loads every account's trunk summaries equal to the truth, month-to-date totals included; no access_token anywhere", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const lines: string[] = [];
    const config = trunksConfig(sandbox);
    const result = await runAt(
      db.warehouse,
      config,
      sandbox,
      { command: "run" },
      { log: capturingLogger(lines) },
    );
    expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
    const tokens: string[] = [];
    for (const account of sandbox.world.accounts) {
      const truth = await truthRecords(sandbox, "sip_trunks", account.name);
      expect(truth.length).toBeGreaterThan(0);
      tokens.push(...truth.map((t) => String(t.access_token)));
      expect(await landedRows(db.warehouse, "sip_trunks", account.name), account.name).toEqual(
        expectedFromTruth("sip_trunks", truth),
      );
      expect(await landedRows(db.warehouse, "numbers", account.name), account.name).toEqual(
        expectedFromTruth("numbers", await truthRecords(sandbox, "numbers", account.name)),
      );
    }
    const used = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.sip_trunks WHERE talk_time > 0 AND charge > 0`.execute(
      db.warehouse.db,
    );
    expect(used.rows[0]!.n).toBeGreaterThan(0);
    expect(tokens.every((t) => /^[0-9a-f]{32}$/.test(t))).toBe(true);
    await expectSecretsNowhere(db.warehouse, tokens, lines);
  });

  it('reads "sip_trunks": null as no trunks (exit 0, the reason in the records, summary and log); after trunks were loaded, holds it', async ({
    sandbox,
    createDatabase,
  }) => {
    const config = trunksConfig(sandbox);
    const master = { ...config, accounts: config.accounts.filter((a) => a.name === "master") };
    const trunksOnly = {
      ...master,
      accounts: master.accounts.map((a) => ({ ...a, streams: ["sip_trunks"] })),
    };
    const loaded = await createDatabase();
    expect((await runAt(loaded.warehouse, master, sandbox, { command: "run" })).exitCode).toBe(0);
    const trunksBefore = await landedRows(loaded.warehouse, "sip_trunks", "master");
    expect(trunksBefore.length).toBeGreaterThan(0);
    // Before the account had any trunk, the platform lists none: `"sip_trunks": null`.
    await setSandboxClock(sandbox, "2020-01-01T00:00:00Z");
    try {
      const answer = await fetch(`${sandbox.url}/v1/trunks`, {
        headers: { authorization: `Bearer ${sandbox.world.accounts[0]!.apiKey}` },
      });
      expect(((await answer.json()) as { sip_trunks: unknown }).sip_trunks).toBeNull();
      const db = await createDatabase();
      const lines: string[] = [];
      const second = await runAt(
        db.warehouse,
        trunksOnly,
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      expect(second.exitCode).toBe(0);
      const trunks = second.streams.find((s) => s.stream === "sip_trunks")!;
      expect(trunks).toMatchObject({ status: "succeeded", rowsFetched: 0, rejected: 0 });
      expect(trunks.quality).toEqual({ null_list_read_as_empty: 1 });
      expect(await landedRows(db.warehouse, "sip_trunks", "master")).toEqual(
        expectedFromTruth("sip_trunks", await truthRecords(sandbox, "sip_trunks", "master")),
      );
      expect(await landedRows(db.warehouse, "sip_trunks", "master")).toEqual([]);
      // Why the table is empty: in the run's records, its summary and its log.
      const recorded = await sql<{ slices: unknown; streams: unknown }>`
        SELECT (SELECT quality FROM etl.run_slices WHERE run_id = ${second.runId} AND stream = 'sip_trunks') AS slices,
               (SELECT quality FROM etl.run_streams WHERE run_id = ${second.runId} AND stream = 'sip_trunks') AS streams`.execute(
        db.warehouse.db,
      );
      expect(recorded.rows[0]).toEqual({
        slices: { null_list_read_as_empty: 1 },
        streams: { null_list_read_as_empty: 1 },
      });
      expect(formatRunSummary(second).join("\n")).toContain("data quality: null list read as empty: 1");
      expect(
        lines.some((line) => line.includes('answer with \\"sip_trunks\\": null, read as an empty list')),
      ).toBe(true);

      // Where trunks were loaded, the same null list would delete them all: held, the trunks kept.
      const held = await runAt(loaded.warehouse, trunksOnly, sandbox, { command: "run" });
      expect(held.exitCode).toBe(1);
      expect(held.streams.flatMap((s) => s.errors).join("\n")).toContain(
        `the platform lists 0 rows where the warehouse holds ${trunksBefore.length}`,
      );
      expect(await landedRows(loaded.warehouse, "sip_trunks", "master")).toEqual(trunksBefore);
    } finally {
      await setSandboxClock(sandbox, "2026-08-06T12:00:00Z");
    }
  });
});
