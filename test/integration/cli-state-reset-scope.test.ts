import { acquireStreamLocks, type StreamLocks } from "../../src/warehouse/coordination/stream-locks.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { completedLabels } from "./pipeline-harness.js";

const it = fixtureTest
  /** One configured account `default` (its key is never used by these commands). */
  .extend(
    "configured",
    { scope: "file" },
    ({ database }): Record<string, string> => ({
      DATABASE_URL: database.url,
      TELECOM_API_URL: "http://127.0.0.1:9",
      TELECOM_API_KEY: "unused",
    }),
  )
  /** No account configured at all. */
  .extend(
    "unconfigured",
    { scope: "file" },
    ({ database }): Record<string, string> => ({ DATABASE_URL: database.url }),
  );

/**
 * `state reset` deletes exactly what it locked, and `state reset` / `rejects list|replay` refuse
 * account and stream names that match nothing. No platform is needed: the state is written directly.
 */
describe("state reset scope and name checks (CLI)", () => {
  async function seedState(db: TestDatabase, ...accounts: string[]) {
    await db.warehouse.db.deleteFrom("etl.stream_state").execute();
    for (const account of accounts) {
      await db.warehouse.db
        .insertInto("etl.stream_state")
        .values({ account, stream: "cdrs", window_start: "2026-08-01", window_end: "2026-08-02" })
        .execute();
    }
  }

  async function holding<T>(db: TestDatabase, account: string, body: () => Promise<T>): Promise<T> {
    const locks: StreamLocks = await acquireStreamLocks(db.warehouse, [{ account, stream: "cdrs" }], {
      timeoutMs: 0,
      runId: 999_999,
    });
    try {
      return await body();
    } finally {
      await locks.release();
    }
  }

  it("without --accounts it locks every account it forgets, configured or not", async ({
    database: db,
    configured,
  }) => {
    await seedState(db, "default", "retired");
    const blocked = await holding(db, "retired", () =>
      runCli(["state", "reset", "--streams", "cdrs", "--yes"], { env: configured }),
    );
    expect(blocked.code, blocked.stderr).toBe(4);
    expect(blocked.stderr).toMatch(/stream cdrs of account retired is already running/);
    expect(await completedLabels(db.warehouse, "retired", "cdrs")).toEqual(["2026-08-01..2026-08-02"]);
    expect(await completedLabels(db.warehouse, "default", "cdrs")).toEqual(["2026-08-01..2026-08-02"]);

    const reset = await runCli(["state", "reset", "--streams", "cdrs", "--yes"], { env: configured });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain("forgot 2 completed windows of cdrs");
    expect(await completedLabels(db.warehouse, "retired", "cdrs")).toEqual([]);
  });

  it("with no account configured it still locks the accounts that have state", async ({
    database: db,
    unconfigured,
  }) => {
    await seedState(db, "acme");
    const blocked = await holding(db, "acme", () =>
      runCli(["state", "reset", "--streams", "cdrs", "--yes"], { env: unconfigured }),
    );
    expect(blocked.code, blocked.stderr).toBe(4);
    expect(await completedLabels(db.warehouse, "acme", "cdrs")).toEqual(["2026-08-01..2026-08-02"]);
  });

  it("unknown account or stream names are usage errors naming the known ones, nothing forgotten", async ({
    database: db,
    configured,
  }) => {
    await seedState(db, "default", "retired");
    await db.warehouse.db
      .insertInto("etl.rejects")
      .values({ account: "oldco", stream: "cdrs", slice: "2026-08-01..2026-08-02", raw: "{}", issues: "[]" })
      .execute();
    const cases: [string[], RegExp][] = [
      [
        ["state", "reset", "--streams", "cdrs", "--accounts", "nobody", "--yes"],
        /unknown account "nobody"; known: default, retired$/m,
      ],
      [["state", "reset", "--streams", "nosuch", "--yes"], /unknown stream "nosuch"; known: cdrs, /],
      [["rejects", "list", "--account", "nobody"], /unknown account "nobody"; known: default, oldco$/m],
      [["rejects", "list", "--stream", "nosuch"], /unknown stream "nosuch"; known: cdrs, /],
      [["rejects", "replay", "--account", "nobody"], /unknown account "nobody"; known: default, oldco$/m],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { env: configured });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stdout, args.join(" ")).toBe("");
    }
    expect(await completedLabels(db.warehouse, "retired", "cdrs")).toHaveLength(1);
    // An account known only from its rejects is accepted.
    const old = await runCli(["rejects", "list", "--account", "oldco"], { env: configured });
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toMatch(/^#\d+ oldco\/cdrs /);
  });
});
