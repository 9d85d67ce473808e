import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { LIST_STREAMS } from "@telecom-etl/sandbox/list-streams.js";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { STREAM_NAMES, STREAMS } from "../../src/streams/registry.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
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

/**
 * Every landing table (each stream of the registry but `sub_accounts`, which this config does not
 * read, and each child table) of `account` compared with the truth, failing on the first
 * difference. A stream's truth is asked for the run's days unless the stream reads its resource
 * whole (`full_refresh`: what the account has now); a child table compares with its parent's truth;
 * the number catalog takes a country instead of an account (master only).
 */
async function expectTruth(sandbox: RunningSandbox, db: TestDatabase, account: string, today: string) {
  const range = { from: START, to: today };
  const checks: [string, Record<string, unknown>[], object?][] = [];
  for (const name of STREAM_NAMES) {
    if (name === "sub_accounts" || name === "number_catalog") continue;
    const stream = STREAMS[name];
    const records = await truthRecords(
      sandbox,
      name,
      account,
      stream.slicing === "full_refresh" ? {} : range,
    );
    checks.push([name, records, { account }]);
    for (const child of stream.children ?? []) checks.push([child.name, records, { account }]);
  }
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

/** `GET <path>` of a catalogue resource in each revision, as the sandbox's stats name routes. */
const getRoutes = (paths: Readonly<Record<"2024" | "2026", string>>) =>
  ({ "2024": `GET ${paths["2024"]}`, "2026": `GET ${paths["2026"]}` }) as const;
/** Where a call's transcription is read in each revision: under its CDR (platform-facts.md). */
const CALL_TRANSCRIPTION_ROUTE = getRoutes(CATALOGUE.call_transcription.paths);
const SPEECH_ANALYTICS_ROUTES = Object.values(getRoutes(CATALOGUE.uploaded_transcription.paths));

/** Routes that answer about one call: its transcriptions, and its CDR and recording (routes no stream reads). */
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
        // Nothing changed: a window of rows without ids is rewritten whole, but by content the same rows.
        expect(s.inserted + s.updated + s.deleted, `${s.account}/${s.stream} re-run`).toBe(0);
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
    "API revision %s under hostile faults (2026 without its deprecated fields): every stream still equals the truth, the faulty rows in the rejects",
    async (revision, { launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        seed: 72,
        start: START,
        days: 3,
        accounts: 1,
        callsPerDay: 150,
        apiRevision: revision,
        dropDeprecated: revision === "2026",
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
          // Every list stream the sandbox serves with row faults; a dated list's days are asked.
          LIST_STREAMS.map((stream) =>
            truthRecords(
              sandbox,
              stream,
              "master",
              CATALOGUE[stream].kind === "windowed_list" ? { from: START, to: result.today } : {},
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
