import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SCAFFOLDED_RESOURCE_NAMES } from "@telecom-etl/platform/scaffolded-resources.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { cutListAfter, isCdrListOf, startFaultProxy } from "./fault-proxy.js";
import { completedLabels, expectedRows, loadedRows, runAt, sandboxConfig } from "./pipeline-harness.js";

/**
 * `telecom-etl recount --from --to` (issue 32, item 3 (b)): the nightly re-count on demand, for
 * every settled window of a range. One line per window that differs, exit 1 when one does (it is
 * opened again: the next run reads it), exit 0 when every window agrees, exit 2 for a stream the
 * re-count cannot check.
 */
const START = "2026-08-01";
const NOW = "2026-08-07T00:00:00Z";
const LYING_DAY = "2026-08-02";

describe("telecom-etl recount", () => {
  it("names each window that differs, exits 1, and the next run reads it; then exits 0", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 34,
      start: START,
      days: 6,
      accounts: 1,
      callsPerDay: 300,
      lateShare: 0,
      now: NOW,
    });
    const lying = { on: true };
    const proxy = await startFaultProxy(
      sandbox.url,
      () => undefined,
      cutListAfter(100, "items", (url) => lying.on && isCdrListOf(url, LYING_DAY, "placed")),
    );
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-recount-"));
    try {
      await chmod(workdir, 0o755);
      const db = await createDatabase();
      const account = sandbox.world.accounts[0]!;
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url, settleHours: 24 });
      const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs"] })) };
      // The lie is believed: the day settles short.
      expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
      const truth = await expectedRows(sandbox, "cdrs", account.name, { from: START, to: "2026-08-07" });
      const short = truth.length - (await loadedRows(db.warehouse, "cdrs", account.name)).length;
      expect(short).toBeGreaterThan(20);

      lying.on = false;
      await writeFile(
        path.join(workdir, "telecom-etl.yaml"),
        `accounts:\n  - name: ${account.name}\n    base_url: ${proxy.url}\n    api_key_env: RECOUNT_KEY\n    streams: [cdrs]\n`,
      );
      const options = {
        env: { RECOUNT_KEY: account.apiKey, DATABASE_URL: db.url, TELECOM_ETL_NOW: NOW },
        cwd: workdir,
      };
      const range = ["recount", "--from", START, "--to", "2026-08-06"];
      const found = await runCli(range, options);
      expect(found.code, found.stderr.slice(-2000)).toBe(1);
      const lines = found.stdout.trim().split("\n");
      expect(lines.filter((line) => line.includes("differs:"))).toEqual([
        `  differs: account ${account.name}, stream cdrs, window ${LYING_DAY}..2026-08-03: the platform counts ${100 + short} rows (placed), the warehouse holds 100: opened again`,
      ]);
      expect(lines.at(-1)).toBe(
        "  5 settled window(s) checked against the platform's totals (10 request(s)): 1 differ, opened again: the next run (or a backfill of their days) reads them again",
      );
      expect(await completedLabels(db.warehouse, account.name, "cdrs")).not.toContain(
        `${LYING_DAY}..2026-08-03`,
      );

      // The other settled windows agree; the opened one is not settled any more, so not counted.
      const agreed = await runCli(range, options);
      expect(agreed.code, agreed.stderr.slice(-2000)).toBe(0);
      expect(agreed.stdout).toContain(
        "4 settled window(s) checked against the platform's totals (8 request(s)): all agree",
      );

      // The next run reads the opened window: the warehouse reaches the truth.
      expect((await runAt(db.warehouse, config, sandbox, { command: "run" })).exitCode).toBe(0);
      expect(await loadedRows(db.warehouse, "cdrs", account.name)).toEqual(truth);

      const wrong = await runCli([...range, "--streams", "invoices"], options);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr.trim()).toBe(
        // Every list `npm run scaffold:stream` added is a date-windowed list with a total.
        `telecom-etl: stream invoices is not re-counted (only date-windowed lists with a total are): ${[
          "cdrs",
          "short_link_metrics",
          "messages",
          "recordings",
          "transactions",
          ...SCAFFOLDED_RESOURCE_NAMES,
        ].join(", ")}`,
      );
    } finally {
      await proxy.close();
      await rm(workdir, { recursive: true, force: true });
    }
  });
});
