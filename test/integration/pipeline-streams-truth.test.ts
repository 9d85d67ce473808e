import { sql } from "kysely";
import type { EtlConfig } from "../../src/config.js";
import type { RunningSandbox } from "../../src/sandbox/start-sandbox.js";
import { STREAM_NAMES, STREAMS } from "../../src/streams/registry.js";
import { listRejects } from "../../src/warehouse/rejects.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue "every stream": after a run, each stream (and each child table) of each account equals
 * the sandbox's truth, mapped by the test's own oracle; a second run changes nothing and sends no
 * lookup for an id already final. On both API revisions, and under `hostile` faults (rejects aside).
 */
const START = "2026-08-01";

/** Every stream, reading every account's validation tokens and, for the master, the US number catalog. */
function everyStream(sandbox: RunningSandbox, overrides: Partial<EtlConfig> = {}): EtlConfig {
  const base = sandboxConfig(sandbox, { transcriptionMaxAgeDays: 60, ...overrides });
  return {
    ...base,
    accounts: base.accounts.map((account) => {
      const world = sandbox.world.accounts.find((a) => a.name === account.name)!;
      return {
        ...account,
        streams: STREAM_NAMES.filter((name) => name !== "sub_accounts"),
        sources: {
          subAccounts: [],
          brandIds: undefined,
          validationTokens: world.validations.map((v) => v.token),
          numberCatalog: { countries: world.role === "master" ? [1] : [], textEnabledOnly: false },
        },
      };
    }),
  };
}

/** Every landing table (streams and child tables) of `account` compared with the truth, failing on the first difference. */
async function expectTruth(sandbox: RunningSandbox, db: TestDatabase, account: string, today: string) {
  const range = { from: START, to: today };
  const truth = (stream: string, windowed = true) =>
    truthRecords(sandbox, stream, account, windowed ? range : {});
  const checks: [string, Record<string, unknown>[], object?][] = [
    ["cdrs", await truth("cdrs")],
    ["short_link_metrics", await truth("short_link_metrics")],
    ["invoices", await truth("invoices", false)],
    ["messages", await truth("messages")],
    ["sip_trunks", await truth("sip_trunks", false)],
    ["numbers", await truth("numbers", false)],
    ["call_webhooks", await truth("call_webhooks", false)],
    ["brand_appeals", await truth("brand_appeals", false)],
    ["transcriptions", await truth("transcriptions")],
    ["transcription_turns", await truth("transcriptions")],
    ["recordings", await truth("recordings")],
    ["validations", await truth("validations", false)],
    ["validation_results", await truth("validations", false)],
  ];
  if (account === "master") {
    const catalog = await fetch(`${sandbox.url}/_sandbox/truth/number_catalog?country=1`);
    const records = (await catalog.text())
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    checks.push(["number_catalog", records, { today, country: "1" }]);
  }
  // Recordings are on for some trunks and numbers of every account of these worlds: an empty truth
  // would let the comparison pass without reading anything.
  expect(
    checks.find(([table]) => table === "recordings")![1].length,
    `${account}/recordings`,
  ).toBeGreaterThan(0);
  for (const [table, records, context] of checks) {
    expect(await landedRows(db.warehouse, table, account), `${account}/${table}`).toEqual(
      expectedFromTruth(table, records, context),
    );
  }
}

/** Requests the sandbox answered on a route, all statuses together. */
async function routeRequests(sandbox: RunningSandbox, routes: readonly string[]): Promise<number> {
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
    routes: Record<string, Record<string, number>>;
  };
  return routes.reduce(
    (sum, route) => sum + Object.values(stats.routes[route] ?? {}).reduce((a, b) => a + b, 0),
    0,
  );
}

/** Where a call's transcription is read in each revision: under its CDR (platform-facts.md). */
const CALL_TRANSCRIPTION_ROUTE = {
  "2024": "GET /v1/cdr/{uuid}/transcription",
  "2026": "GET /v1/cdrs/{call_id}/transcription",
} as const;
const SPEECH_ANALYTICS_ROUTES = ["GET /v1/speech-analytics/{uuid}", "GET /v1/speech-analytics/{request_id}"];

const LOOKUP_ROUTES = [
  ...SPEECH_ANALYTICS_ROUTES,
  ...Object.values(CALL_TRANSCRIPTION_ROUTE),
  "GET /v1/cdr/{uuid}",
  "GET /v1/cdrs/{call_id}",
  "GET /v1/recordings/{call_uuid}",
  "GET /v1/recordings/{call_id}",
];

describe("every stream against the sandbox's truth", () => {
  it.for([
    { revision: "2024" as const, dropDeprecated: false },
    { revision: "2026" as const, dropDeprecated: true },
  ])(
    "API revision $revision: every stream and child table equals the truth; a re-run changes nothing",
    async ({ revision, dropDeprecated }, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 71,
        start: START,
        days: 5,
        accounts: 2,
        callsPerDay: 120,
        apiRevision: revision,
        dropDeprecated,
        now: "2026-08-06T06:00:00Z",
      });
      const db = await createDatabase();
      const config = everyStream(sandbox);
      const first = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(first.exitCode, JSON.stringify(first.streams.filter((s) => s.errors.length > 0))).toBe(0);
      for (const account of config.accounts.map((a) => a.name))
        await expectTruth(sandbox, db, account, first.today);
      const transcriptions = first.streams.find(
        (s) => s.stream === "transcriptions" && s.account === "master",
      )!;
      // Child legs are candidates by their trunk's settings but have no transcription: asked once, none.
      expect(transcriptions.lookups.none ?? 0).toBeGreaterThan(0);
      // Calls are asked under their CDR, one request per candidate; speech-analytics (uploaded files) never.
      const asked = Object.values(transcriptions.lookups).reduce((a, b) => a + b, 0);
      expect(await routeRequests(sandbox, [CALL_TRANSCRIPTION_ROUTE[revision]])).toBeGreaterThanOrEqual(
        asked,
      );
      expect(await routeRequests(sandbox, SPEECH_ANALYTICS_ROUTES)).toBe(0);

      const lookupsBefore = await routeRequests(sandbox, LOOKUP_ROUTES);
      const again = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(again.exitCode).toBe(0);
      for (const s of again.streams) {
        // A window of rows without ids is rewritten whole (the same rows); everything else is untouched.
        const rewritten = STREAMS[s.stream as keyof typeof STREAMS].table.writeMode === "replace_window";
        expect(
          rewritten ? s.inserted - s.deleted : s.inserted + s.updated,
          `${s.account}/${s.stream} re-run`,
        ).toBe(0);
      }
      for (const account of config.accounts.map((a) => a.name))
        await expectTruth(sandbox, db, account, again.today);
      // Nothing is pending at this clock (every transcription is ready 15 min after its call), so
      // the second run asks about no call at all.
      expect(await routeRequests(sandbox, LOOKUP_ROUTES)).toBe(lookupsBefore);
      const history = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM platform.call_webhooks WHERE valid_to IS NOT NULL`.execute(
        db.warehouse.db,
      );
      expect(history.rows[0]?.n).toBe(0);
    },
  );

  it.for(["2024", "2026"] as const)(
    "API revision %s under hostile faults: every stream still equals the truth, the faulty rows in the rejects",
    async (revision, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 72,
        start: START,
        days: 3,
        accounts: 1,
        callsPerDay: 150,
        apiRevision: revision,
        faults: { base: "hostile", hangMs: 2_500, latencySpikeMs: 200, retryAfterSeconds: 1 },
        now: "2026-08-04T06:00:00Z",
      });
      const db = await createDatabase();
      const config = everyStream(sandbox, {
        timeouts: { connectMs: 2_000, headersMs: 1_000, totalMs: 1_000 },
      });
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect([0, 3], JSON.stringify(result.streams.filter((s) => s.status !== "succeeded"))).toContain(
        result.exitCode,
      );
      await expectTruth(sandbox, db, "master", result.today);
      const rejected = await listRejects(db.warehouse.db, { limit: 100_000 });
      const malformed = (
        await Promise.all(
          ["cdrs", "short_link_metrics", "invoices", "messages", "recordings"].map((stream) =>
            truthRecords(
              sandbox,
              stream,
              "master",
              stream === "invoices" ? {} : { from: START, to: result.today },
              "/malformed",
            ),
          ),
        )
      )
        .flat()
        .filter((m) => m.rejected === true);
      expect(rejected.length).toBe(malformed.length);
    },
  );
});
