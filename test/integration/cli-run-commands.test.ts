import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { completedLabels, expectedRows, loadedRows } from "./pipeline-harness.js";

/** The commands around the pipeline, through the built CLI: bad input, backfill, state reset, rejects. */
/** The CLI's environment for the file's rig. */
const it = fixtureTest.extend("env", { scope: "file" }, ({ rig }): Record<string, string> => {
  const { sandbox, db } = rig;
  return {
    TELECOM_API_URL: sandbox.url,
    TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
    DATABASE_URL: db.url,
    TELECOM_ETL_START_DATE: "2026-08-01",
    TELECOM_ETL_STREAMS: "cdrs,short_link_metrics",
    TELECOM_ETL_NOW: "2026-08-09T03:00:00Z",
  };
});
it.override({ sandboxOptions: { seed: 21, start: "2026-08-01", days: 8, accounts: 1, callsPerDay: 100 } });

describe("run, backfill, state and rejects commands (CLI)", () => {
  it("bad flags and dates: one line and exit 2, nothing recorded", async ({ rig, env }) => {
    const { db } = rig;
    const cases: [string[], RegExp][] = [
      [
        ["run", "--until", "2026-02-30"],
        /--until: 2026-02-30 is not a real date \(February 2026 has 28 days\)/,
      ],
      [["run", "--lock-timeout", "-1"], /--lock-timeout: expected a number of seconds/],
      [["run", "--accounts", "ghost"], /unknown account "ghost"; configured: default/],
      [["run", "--streams", "nope"], /unknown stream "nope"/],
      [
        ["run", "--accept-shrink", "default"],
        /--accept-shrink "default": expected ACCOUNT\/STREAM or ACCOUNT\/STREAM\/YYYY-MM-DD/,
      ],
      [
        ["nightly", "--accept-drift", "ghost/cdrs"],
        /--accept-drift: no account "ghost"; configured: default/,
      ],
      [
        ["backfill", "--streams", "cdrs", "--from", "2026-08-05", "--to", "2026-08-01"],
        /--from 2026-08-05 is after --to/,
      ],
      [["backfill", "--from", "2026-08-01", "--to", "2026-08-02"], /required option '--streams <names>'/],
      [["state", "reset", "--streams", "cdrs"], /refusing to forget completed windows of cdrs without --yes/],
      [["rejects", "list", "--limit", "0"], /--limit: expected a positive integer/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(
        result.stderr
          .trim()
          .split("\n")
          .filter((line) => !line.startsWith("{")),
        args.join(" "),
      ).toHaveLength(1);
      expect(result.stderr, args.join(" ")).toMatch(message);
    }
    const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM etl.run_slices`.execute(
      db.warehouse.db,
    );
    expect(stored.rows[0]?.n).toBe(0);
  });

  it("track: records a validation token with its submission time once; bad input is one line, exit 2", async ({
    rig,
    env,
  }) => {
    const db = rig.db.warehouse.db;
    const tracked = async () =>
      (
        await sql<{
          kind: string;
          account: string;
          external_id: string;
          status: string;
          first_seen_at: Date;
        }>`
          SELECT kind, account, external_id, status, first_seen_at FROM etl.tracked_requests
          WHERE external_id LIKE 'cli-track-%' ORDER BY external_id`.execute(db)
      ).rows;
    const bad: [string[], RegExp][] = [
      [["track", "recording", "cli-track-x"], /track: expected transcription or validation, got "recording"/],
      [
        ["track", "validation", "cli-track-x", "--submitted-at", "yesterday"],
        /--submitted-at: expected an ISO 8601 time/,
      ],
      [
        ["track", "validation", "cli-track-x", "--submitted-at", "2999-01-01T00:00:00Z"],
        /--submitted-at: .* is in the future/,
      ],
      [
        ["track", "validation", "cli-track-x", "--account", "ghost"],
        /unknown account "ghost"; configured: default/,
      ],
    ];
    for (const [args, message] of bad) {
      const result = await runCli(args, { env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(
        result.stderr
          .trim()
          .split("\n")
          .filter((line) => !line.startsWith("{")),
        args.join(" "),
      ).toEqual([expect.stringMatching(message)]);
    }
    expect(await tracked()).toEqual([]);

    const args = ["track", "validation", "cli-track-1", "--submitted-at", "2026-08-03T14:05:00Z"];
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/tracking validation token cli-track-1 for account default/);
    const again = await runCli([...args.slice(0, 3), "--submitted-at", "2026-08-04T00:00:00Z"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/was tracked already; nothing changed/);
    expect(await tracked()).toEqual([
      {
        kind: "validation",
        account: "default",
        external_id: "cli-track-1",
        status: "pending",
        first_seen_at: new Date("2026-08-03T14:05:00Z"),
      },
    ]);
  });

  it("backfill never removes completion; state reset forgets windows so the next run reloads them", async ({
    rig,
    env,
  }) => {
    const { sandbox, db } = rig;
    const account = "default";
    const run = await runCli(["run"], { env });
    expect(run.code, run.stderr.slice(-1000)).toBe(0);
    // The sandbox's clock (its Date header) says 2026-08-09 00:00: with 72 settle hours, only the
    // windows ending by 2026-08-06 are final; the rest stay open and are read again.
    expect(run.stdout).toMatch(/default\/cdrs +succeeded +windows 9\/9 loaded \(5 settled, 0 failed\)/);
    const completed = await completedLabels(db.warehouse, account, "cdrs");
    expect(completed).toEqual([
      "2026-08-01..2026-08-02",
      "2026-08-02..2026-08-03",
      "2026-08-03..2026-08-04",
      "2026-08-04..2026-08-05",
      "2026-08-05..2026-08-06",
    ]);

    // Both windows are settled: a backfill skips them, and with --refetch reads them again.
    const skipped = await runCli(
      ["backfill", "--streams", "cdrs", "--from", "2026-08-03", "--to", "2026-08-04"],
      {
        env,
      },
    );
    expect(skipped.code, skipped.stderr.slice(-1000)).toBe(0);
    expect(skipped.stdout).toMatch(/windows 0\/0 loaded/);
    expect(skipped.stdout).toContain(
      "default/cdrs: 2 window(s) of the range already settled, not read again",
    );
    const backfill = await runCli(
      ["backfill", "--streams", "cdrs", "--from", "2026-08-03", "--to", "2026-08-04", "--refetch"],
      { env },
    );
    expect(backfill.code).toBe(0);
    expect(backfill.stdout).toMatch(
      /windows 2\/2 loaded \(2 settled, 0 failed\) +rows \d+ fetched: 0 inserted, 0 updated/,
    );
    expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual(completed);

    const reset = await runCli(["state", "reset", "--streams", "cdrs", "--from", "2026-08-03", "--yes"], {
      env,
    });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain("forgot 3 completed windows of cdrs ending after 2026-08-03");
    expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual(completed.slice(0, 2));

    const again = await runCli(["--json", "run", "--streams", "cdrs"], { env });
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout) as { runId: number; streams: { windowsPlanned: number }[] };
    expect(summary.streams[0]?.windowsPlanned).toBe(7);
    const slices = await db.warehouse.db
      .selectFrom("etl.run_slices")
      .select("slice")
      .where("run_id", "=", summary.runId)
      .orderBy("slice")
      .execute();
    expect(slices.map((s) => s.slice)).toEqual([
      "2026-08-03..2026-08-04",
      "2026-08-04..2026-08-05",
      "2026-08-05..2026-08-06",
      "2026-08-06..2026-08-07",
      "2026-08-07..2026-08-08",
      "2026-08-08..2026-08-09",
      "2026-08-09..2026-08-10",
    ]);
    expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual(completed);
    expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
      await expectedRows(sandbox, "cdrs", "master", { from: "2026-08-01", to: "2026-08-09" }),
    );
  });

  it("rejects list shows quarantined rows; replay loads those that now pass and leaves completion alone", async ({
    rig,
    env,
  }) => {
    const { db } = rig;
    // A row quarantined under an older schema that the current one accepts (as after a schema fix),
    // stored as rejects were before the `implied` column: the direction inside the issues.
    const valid = {
      date: "2026-08-02T10:00:00Z",
      from: "15550001111",
      to: "15550002222",
      disposition: "answered",
      duration: 61,
      destination: "United States",
      per_minute: "0.009",
      charge: "0.018",
      sip_trunk: null,
      uuid: "replayed-0001",
      parent_uuid: null,
      answered_by: null,
    };
    const stillBad = { ...valid, uuid: "still-bad-0002", duration: "sixty" };
    const issues = [
      { path: "duration", code: "invalid_type", message: "old schema", implied: { direction: "placed" } },
    ];
    for (const raw of [valid, stillBad]) {
      await db.warehouse.db
        .insertInto("etl.rejects")
        .values({
          account: "default",
          stream: "cdrs",
          slice: "2026-08-02..2026-08-03",
          raw: JSON.stringify(raw),
          issues: JSON.stringify(issues),
        })
        .execute();
    }
    const before = await completedLabels(db.warehouse, "default", "cdrs");

    const list = await runCli(["rejects", "list", "--stream", "cdrs"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /#\d+ default\/cdrs direction=placed 2026-08-02\.\.2026-08-03 run - pending\n +duration: old schema/,
    );
    const json = JSON.parse((await runCli(["rejects", "list", "--json"], { env })).stdout) as unknown[];
    expect(json).toHaveLength(2);

    const replay = await runCli(["rejects", "replay", "--stream", "cdrs"], { env });
    expect(replay.code, replay.stderr.slice(-1000)).toBe(3);
    expect(replay.stdout).toContain("default/cdrs: 1 of 2 loaded, 1 still rejected");
    const loaded = await db.warehouse.db
      .selectFrom("etl.rejects")
      .select(["raw", "replayed_at"])
      .orderBy("id")
      .execute();
    expect(loaded.map((r) => r.replayed_at !== null)).toEqual([true, false]);
    const row = await sql<{ direction: string; duration: number }>`
      SELECT direction, duration FROM platform.cdrs WHERE uuid = 'replayed-0001'`.execute(db.warehouse.db);
    expect(row.rows).toEqual([{ direction: "placed", duration: 61 }]);
    expect(await completedLabels(db.warehouse, "default", "cdrs")).toEqual(before);

    const second = await runCli(["rejects", "replay"], { env });
    expect(second.stdout).toContain("default/cdrs: 0 of 1 loaded, 1 still rejected");
  });
});
