import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { type RecordingServer, startRecordingServer } from "../helpers/recording-server.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { truthRecords } from "./pipeline-harness.js";

/**
 * Issue 15, section 3, through the CLI against the sandbox and a real Postgres: `runs list|show`
 * say what each run did (429s counted against the sandbox's own request statistics), a field the
 * platform starts sending is reported once (summary, warning, `status`, `runs show`, `schema`), the
 * metrics file and the Pushgateway get Prometheus text a real parser reads, and the alert webhook
 * (a local HTTP server) gets one message for a failing run and none for a clean one.
 */
const NOW = "2026-08-04T00:00:00Z";
const DBT_TIMEOUT = { timeout: 300_000 };

interface Rig {
  readonly sandbox: RunningSandbox;
  readonly db: TestDatabase;
  readonly hooks: RecordingServer;
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly metricsFile: string;
}

/** A config for the sandbox's first account (cdrs only, API revision 2024: only `GET /v1/cdr` is read), with alerts and metrics. */
async function rigFor(sandbox: RunningSandbox, db: TestDatabase, hooks: RecordingServer): Promise<Rig> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "run-history-"));
  const metricsFile = path.join(dir, "telecom-etl.prom");
  const config = [
    "accounts:",
    "  - name: acme",
    `    base_url: ${sandbox.url}`,
    "    api_key_env: SANDBOX_KEY",
    '    api_revision: "2024"',
    "    streams: [cdrs]",
    "    rate: { requests_per_second: 200, burst: 50, concurrency: 4 }",
    `start_date: ${sandbox.world.start}`,
    // Small pages: enough requests for the sandbox's 429s to hit some.
    "per_page: 20",
    `alert_webhook_url: ${hooks.url}/hook/T000/B000/webhook-secret-part`,
    `metrics_textfile: ${metricsFile}`,
    `metrics_pushgateway_url: ${hooks.url}/gateway`,
  ].join("\n");
  await writeFile(path.join(dir, "telecom-etl.yaml"), `${config}\n`);
  return {
    sandbox,
    db,
    hooks,
    dir,
    metricsFile,
    env: {
      SANDBOX_KEY: sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: db.url,
      TELECOM_ETL_CONFIG: path.join(dir, "telecom-etl.yaml"),
      TELECOM_ETL_NOW: NOW,
    },
  };
}

function family(families: readonly PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (found === undefined)
    throw new Error(`metric ${name} missing: ${families.map((f) => f.name).join(", ")}`);
  return found;
}

/** The value of the sample of `name` whose labels include `labels`. */
function sample(
  families: readonly PrometheusFamily[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = family(families, name).metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  if (found === undefined) throw new Error(`no sample of ${name} with ${JSON.stringify(labels)}`);
  return Number(found.value);
}

async function sandboxStats(sandbox: RunningSandbox): Promise<Record<string, Record<string, number>>> {
  const response = await fetch(`${sandbox.url}/_sandbox/stats`);
  return ((await response.json()) as { routes: Record<string, Record<string, number>> }).routes;
}

interface RunJson {
  readonly id: number;
  readonly command: string;
  readonly exitCode: number;
  readonly status: string;
  readonly streams: readonly { stream: string; rowsFetched: number; requests: number; throttled: number }[];
  readonly totals: { requests: number; throttled: number; rowsFetched: number; rowsRejected: number };
  readonly dbt: {
    command: string;
    exitCode: number;
    steps: { step: string; ok: boolean; summary: string }[];
  } | null;
  readonly newFields: number;
}

describe("run history, schema changes, metrics (CLI)", () => {
  it("a new field is reported once; runs, status and schema say it; 429s and rows reach the metrics", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 151,
      start: "2026-08-01",
      days: 3,
      accounts: 1,
      callsPerDay: 120,
      now: NOW,
      faults: { base: "none", rows: { extraField: 0.05 }, requests: { http429: 0.15 }, retryAfterSeconds: 0 },
    });
    const db = await createDatabase();
    const hooks = await startRecordingServer();
    const rig = await rigFor(sandbox, db, hooks);
    try {
      const account = sandbox.world.accounts[0]!.name;
      const range = { from: "2026-08-01", to: "2026-08-04" };
      // The oracle: the rows the sandbox served with its extra fields, and every CDR of the range.
      const extra = (await truthRecords(sandbox, "cdrs", account, range, "/malformed")).filter(
        (m) => m.kind === "extra_field",
      );
      expect(extra.length).toBeGreaterThan(5);
      const cdrs = await truthRecords(sandbox, "cdrs", account, range);

      const first = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(first.code, first.stderr.slice(-2000)).toBe(0);
      expect(first.stdout).toMatch(
        /new field from the platform: cdrs\.billing_zone \(number, first seen in window 2026-08-0\d\.\.2026-08-0\d\)/,
      );
      expect(first.stdout).toContain("new field from the platform: cdrs.carrier_trace_id (string");
      const warnings = first.stderr.split("\n").filter((l) => l.includes("the platform sends a new field"));
      expect(warnings).toHaveLength(2);
      expect(first.stdout).toMatch(/requests \d+ \(\d+ answered 429\)/);
      const routesAfterFirst = await sandboxStats(sandbox);

      // A clean run: no alert. The metrics file is Prometheus text a parser reads.
      expect(hooks.requests.filter((r) => r.url.startsWith("/hook"))).toEqual([]);
      const families = parsePrometheusTextFormat(await readFile(rig.metricsFile, "utf8"));
      const stream = { account: "acme", stream: "cdrs" };
      const served429 = routesAfterFirst["GET /v1/cdr"]?.["429"] ?? 0;
      expect(served429).toBeGreaterThan(0);
      expect(sample(families, "telecom_etl_run_throttled_requests", stream)).toBe(served429);
      const servedAll = Object.values(routesAfterFirst["GET /v1/cdr"] ?? {}).reduce((a, b) => a + b, 0);
      expect(sample(families, "telecom_etl_run_requests", stream)).toBe(servedAll);
      expect(sample(families, "telecom_etl_run_rows_fetched", stream)).toBe(cdrs.length);
      expect(sample(families, "telecom_etl_run_rows_rejected", stream)).toBe(0);
      expect(sample(families, "telecom_etl_run_exit_code", { command: "run" })).toBe(0);
      expect(sample(families, "telecom_etl_run_duration_seconds", { command: "run" })).toBeGreaterThan(0);
      expect(sample(families, "telecom_etl_unknown_fields", { stream: "cdrs" })).toBe(2);
      const lastSuccess = sample(families, "telecom_etl_last_success_timestamp_seconds", stream);
      expect(Math.abs(lastSuccess - Date.now() / 1000)).toBeLessThan(300);
      expect(sample(families, "telecom_etl_freshness_seconds", stream)).toBeGreaterThanOrEqual(0);
      expect(family(families, "telecom_etl_run_rows_fetched").type).toBe("GAUGE");
      // Written whole: no temporary file is left beside it.
      expect((await readdir(rig.dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      // The same text went to the Pushgateway, under job and instance.
      const pushes = hooks.requests.filter((r) => r.url.startsWith("/gateway"));
      expect(pushes).toHaveLength(1);
      expect(pushes[0]!.method).toBe("PUT");
      expect(pushes[0]!.url).toMatch(/^\/gateway\/metrics\/job\/telecom_etl\/instance\/[^/]+$/);
      const pushed = parsePrometheusTextFormat(pushes[0]!.body);
      expect(sample(pushed, "telecom_etl_run_rows_fetched", stream)).toBe(cdrs.length);

      // The second run sees the same fields: it does not report them again.
      const second = await runCli(["run"], { env: rig.env, cwd: rig.dir });
      expect(second.code, second.stderr.slice(-2000)).toBe(0);
      expect(second.stdout).not.toContain("new field");
      expect(second.stderr).not.toContain("the platform sends a new field");

      const list = await runCli(["runs", "list", "--json"], { env: rig.env, cwd: rig.dir });
      expect(list.code, list.stderr).toBe(0);
      const runs = JSON.parse(list.stdout) as RunJson[];
      expect(runs.map((r) => [r.command, r.exitCode, r.newFields])).toEqual([
        ["run", 0, 0],
        ["run", 0, 2],
      ]);
      const [secondRun, firstRun] = runs as [RunJson, RunJson];
      expect(firstRun.totals.throttled).toBe(served429);
      const routesAfterSecond = await sandboxStats(sandbox);
      expect(firstRun.totals.throttled + secondRun.totals.throttled).toBe(
        routesAfterSecond["GET /v1/cdr"]?.["429"] ?? 0,
      );
      expect(firstRun.totals.rowsFetched).toBe(cdrs.length);
      const text = await runCli(["runs"], { env: rig.env, cwd: rig.dir });
      expect(text.stdout.split("\n")[1]).toMatch(
        new RegExp(
          `^#${firstRun.id} run succeeded exit 0 .*windows 4/4 .*rows ${cdrs.length} fetched.*requests ${servedAll} \\(${served429} answered 429\\).*2 new field\\(s\\)`,
        ),
      );

      const shown = await runCli(["runs", "show", String(firstRun.id)], { env: rig.env, cwd: rig.dir });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(
        new RegExp(
          `acme/cdrs +succeeded +windows 4/4 loaded .*requests ${servedAll} \\(\\d+ retries, ${served429} answered 429\\)`,
        ),
      );
      expect(shown.stdout).toContain("new fields from the platform, first seen in this run");
      expect(shown.stdout).toMatch(
        /cdrs\.billing_zone \(number\) account acme, window 2026-08-0\d\.\.2026-08-0\d/,
      );
      const again = await runCli(["runs", "show", String(secondRun.id)], { env: rig.env, cwd: rig.dir });
      expect(again.stdout).not.toContain("new fields");
      const missing = await runCli(["runs", "show", "999"], { env: rig.env, cwd: rig.dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim()).toBe(
        "telecom-etl: run 999 is not recorded in this warehouse; telecom-etl runs lists the latest",
      );

      const schema = await runCli(["schema", "--json"], { env: rig.env, cwd: rig.dir });
      const fields = JSON.parse(schema.stdout) as {
        field: string;
        stream: string;
        exampleType: string;
        firstSeenRun: number;
        firstSeenAccount: string;
        rowsSeen: number;
        accounts: string[];
      }[];
      expect(
        fields.map((f) => [f.stream, f.field, f.exampleType, f.firstSeenRun, f.firstSeenAccount, f.accounts]),
      ).toEqual([
        ["cdrs", "billing_zone", "number", firstRun.id, "acme", ["acme"]],
        ["cdrs", "carrier_trace_id", "string", firstRun.id, "acme", ["acme"]],
      ]);
      // Both runs read every window once: each counted the rows the sandbox served with the fields.
      for (const f of fields) expect(f.rowsSeen).toBe(2 * extra.length);
      const status = await runCli(["status"], { env: rig.env, cwd: rig.dir });
      expect(status.stdout).toContain(
        `fields not in the schema (kept in _extra; see telecom-etl schema): billing_zone (number, since run ${firstRun.id}), carrier_trace_id (string, since run ${firstRun.id})`,
      );
    } finally {
      await hooks.close();
      await rm(rig.dir, { recursive: true, force: true });
    }
  });

  it(
    "a failing nightly posts exactly one alert naming account, stream, window and what to do; its dbt steps are recorded; an undeliverable alert changes no exit code",
    DBT_TIMEOUT,
    async ({ launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 152,
        start: "2026-08-01",
        days: 2,
        accounts: 1,
        callsPerDay: 30,
        now: "2026-08-03T00:00:00Z",
        faults: {
          base: "none",
          drift: [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" }],
        },
      });
      const db = await createDatabase();
      const hooks = await startRecordingServer();
      const rig = await rigFor(sandbox, db, hooks);
      const env = { ...rig.env, TELECOM_ETL_NOW: "2026-08-03T00:00:00Z" };
      try {
        const nightly = await runCli(["nightly"], { env, cwd: rig.dir, timeoutMs: 280_000 });
        expect(nightly.code, nightly.stderr.slice(-3000)).toBe(1);
        const alerts = hooks.requests.filter((r) => r.url.startsWith("/hook"));
        expect(alerts).toHaveLength(1);
        expect(alerts[0]!.method).toBe("POST");
        expect(alerts[0]!.headers["content-type"]).toBe("application/json");
        const { text } = JSON.parse(alerts[0]!.body) as { text: string };
        const runs = JSON.parse(
          (await runCli(["runs", "list", "--json"], { env, cwd: rig.dir })).stdout,
        ) as RunJson[];
        expect(runs).toHaveLength(1);
        const run = runs[0]!;
        expect(text.split("\n")[0]).toBe(
          `telecom-etl nightly (run ${run.id}) on ${os.hostname()} ended with exit 1`,
        );
        expect(text).toContain("• account acme, stream cdrs: failed (0 failed, 2 held open of 3 window(s))");
        expect(text).toMatch(
          /account acme, stream cdrs, window 2026-08-01\.\.2026-08-02: \d+ of \d+ rows rejected/,
        );
        expect(text).toContain("What to do: a window failed or was held open");
        // The sandbox's days are in the past: the freshness step finds the table stale, and says so.
        expect(text).toContain("• stale: source platform.cdrs (stale)");
        expect(text).toContain(
          "What to do about the stale source: a loaded stream's table got no new or changed row",
        );
        expect(text).toContain(`Details: telecom-etl runs show ${run.id}`);
        expect(text).not.toContain(sandbox.world.accounts[0]!.apiKey);
        expect(text).not.toContain("webhook-secret-part");

        // The nightly's dbt steps and final code are on its run.
        expect(run.command).toBe("nightly");
        expect(run.exitCode).toBe(1);
        expect(run.dbt?.steps.map((s) => [s.step, s.ok])).toEqual([
          ["dbt build", true],
          ["dbt source freshness", false],
        ]);
        const shown = await runCli(["runs", "show", String(run.id)], { env, cwd: rig.dir });
        expect(shown.stdout).toMatch(/dbt build: PASS=\d+ WARN=\d+ ERROR=0/);
        expect(shown.stdout).toMatch(
          /acme\/cdrs 2026-08-01\.\.2026-08-02 held \(too_many_rejects\): account acme, stream cdrs, window 2026-08-01\.\.2026-08-02: \d+ of \d+ rows rejected/,
        );
        const families = parsePrometheusTextFormat(await readFile(rig.metricsFile, "utf8"));
        expect(sample(families, "telecom_etl_run_exit_code", { command: "nightly" })).toBe(1);
        expect(sample(families, "telecom_etl_run_windows_held", { account: "acme", stream: "cdrs" })).toBe(2);
        expect(sample(families, "telecom_etl_dbt_step_ok", { step: "dbt build" })).toBe(1);

        // The webhook is down: the run still exits 1, with a warning saying the alert was not delivered.
        hooks.answerWith(500);
        const undelivered = await runCli(["run"], { env, cwd: rig.dir });
        expect(undelivered.code, undelivered.stderr.slice(-2000)).toBe(1);
        expect(hooks.requests.filter((r) => r.url.startsWith("/hook"))).toHaveLength(2);
        const warning = undelivered.stderr.split("\n").find((l) => l.includes("could not deliver the alert"));
        expect(warning).toBeDefined();
        expect(warning).toContain("HTTP 500");
        expect(warning).not.toContain("webhook-secret-part");
      } finally {
        await hooks.close();
        await rm(rig.dir, { recursive: true, force: true });
      }
    },
  );
});
