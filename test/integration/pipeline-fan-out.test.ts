import { sql } from "kysely";
import type { AccountConfig, EtlConfig } from "../../src/config/config.js";
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
 * Issue "every stream", sub-accounts: the master's config lists its sub-accounts; each run loads
 * their records (never their keys) and reads every enabled stream of each as an account of its own
 * (`master-sub-<id>`), with the key fetched from the platform and kept in memory. No sub-account
 * key appears in any text or jsonb column of the warehouse, nor in the logs. Call webhooks keep
 * their history; the number catalog keeps a dated snapshot per day.
 */
const START = "2026-08-01";

it.override({
  sandboxOptions: {
    seed: 91,
    start: START,
    days: 4,
    accounts: 3,
    callsPerDay: 80,
    now: "2026-08-05T03:00:00Z",
  },
});

describe("sub-account fan-out", () => {
  it("loads each sub-account's streams under its own name, equal to its truth; its key is nowhere", async ({
    rig,
  }) => {
    const { sandbox, db } = rig;
    const [master, ...subs] = sandbox.world.accounts;
    const base = sandboxConfig(sandbox, { accountNames: ["master"] });
    const config: EtlConfig = {
      ...base,
      accounts: base.accounts.map(
        (a): AccountConfig => ({
          ...a,
          streams: ["cdrs", "short_link_metrics", "messages", "sip_trunks", "sub_accounts"],
          sources: {
            subAccounts: subs.map((s) => s.id),
            brandIds: undefined,
            validationTokens: [],
            numberCatalog: { countries: [], textEnabledOnly: false },
          },
        }),
      ),
    };
    const lines: string[] = [];
    const result = await runAt(
      db.warehouse,
      config,
      sandbox,
      { command: "run" },
      { log: capturingLogger(lines) },
    );
    expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
    expect(new Set(result.streams.map((s) => s.account))).toEqual(
      new Set(["master", ...subs.map((s) => `master-sub-${s.id}`)]),
    );
    // The master's sub-account records, without their keys.
    expect(await landedRows(db.warehouse, "sub_accounts", "master")).toEqual(
      expectedFromTruth("sub_accounts", await truthRecords(sandbox, "sub_accounts", "master")),
    );
    // Each sub-account's own data, loaded under its fan-out name, equals that sub-account's truth.
    for (const sub of subs) {
      const name = `master-sub-${sub.id}`;
      for (const stream of ["cdrs", "short_link_metrics", "messages", "sip_trunks"]) {
        const range = stream === "sip_trunks" ? {} : { from: START, to: result.today };
        expect(await landedRows(db.warehouse, stream, name), `${name}/${stream}`).toEqual(
          expectedFromTruth(stream, await truthRecords(sandbox, stream, sub.name, range)),
        );
      }
    }
    // No sub-account key (nor the master's) in any text or jsonb value of the warehouse, nor in a log line.
    const keys = [master!.apiKey, ...subs.map((s) => s.apiKey)];
    await expectSecretsNowhere(db.warehouse, keys, lines);
  });

  it("a sub-account whose key cannot be had fails its streams in one line naming it; the rest loads", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const base = sandboxConfig(sandbox, { accountNames: ["master"] });
    const config: EtlConfig = {
      ...base,
      accounts: base.accounts.map(
        (a): AccountConfig => ({
          ...a,
          streams: ["sip_trunks"],
          sources: {
            subAccounts: [sandbox.world.accounts[1]!.id, 999_999],
            brandIds: undefined,
            validationTokens: [],
            numberCatalog: { countries: [], textEnabledOnly: false },
          },
        }),
      ),
    };
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
    expect(result.exitCode).toBe(1);
    const failed = result.streams.find((s) => s.account === "master-sub-999999")!;
    expect(failed.status).toBe("failed");
    expect(failed.errors).toEqual([
      "could not fetch the key of sub-account 999999 (with account master's key): the platform knows no sub-account 999999; check sub_accounts of account master",
    ]);
    for (const account of ["master", `master-sub-${sandbox.world.accounts[1]!.id}`]) {
      expect(result.streams.find((s) => s.account === account)?.status, account).toBe("succeeded");
    }
  });
});

describe("history and snapshots", () => {
  it("a changed or deleted call webhook closes its version and opens the new one at the read that saw it", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 92,
      start: START,
      days: 60,
      accounts: 2,
      callsPerDay: 5,
      now: "2026-08-02T00:00:00Z",
    });
    const db = await createDatabase();
    const base = sandboxConfig(sandbox);
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: ["call_webhooks"] })) };
    const reads = [
      "2026-08-02T00:00:00Z",
      "2026-08-20T00:00:00Z",
      "2026-09-10T00:00:00Z",
      "2026-09-29T00:00:00Z",
    ];
    const seen: Record<string, { at: string; truth: Record<string, unknown>[] }[]> = {
      master: [],
      "sub-1": [],
    };
    for (const at of reads) {
      await setSandboxClock(sandbox, at);
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(result.exitCode).toBe(0);
      for (const account of ["master", "sub-1"]) {
        const truth = await truthRecords(sandbox, "call_webhooks", account);
        seen[account]?.push({ at, truth });
        expect(await landedRows(db.warehouse, "call_webhooks", account), `${account} at ${at}`).toEqual(
          expectedFromTruth("call_webhooks", truth),
        );
      }
    }
    // The whole history, rebuilt from what each read saw: a version per (event type, URL) run of reads.
    for (const account of ["master", "sub-1"]) {
      const expected: { event_type: string; url: string; valid_from: string; valid_to: string | null }[] = [];
      const open = new Map<
        string,
        { event_type: string; url: string; valid_from: string; valid_to: string | null }
      >();
      for (const { at, truth } of seen[account]!) {
        const now = new Map(truth.map((w) => [String(w.event_type), String(w.url)]));
        for (const [type, version] of open) {
          if (now.get(type) !== version.url) {
            version.valid_to = at;
            open.delete(type);
          }
        }
        for (const [type, url] of now) {
          if (!open.has(type)) {
            const version = { event_type: type, url, valid_from: at, valid_to: null };
            open.set(type, version);
            expected.push(version);
          }
        }
      }
      const stored = await sql<{ event_type: string; url: string; valid_from: Date; valid_to: Date | null }>`
        SELECT event_type, url, valid_from, valid_to FROM platform.call_webhooks WHERE _account = ${account}
        ORDER BY valid_from, event_type`.execute(db.warehouse.db);
      const asText = (d: Date | string | null) =>
        d === null ? null : new Date(d).toISOString().replace(".000Z", "Z");
      expect(
        stored.rows.map((r) => ({ ...r, valid_from: asText(r.valid_from), valid_to: asText(r.valid_to) })),
        account,
      ).toEqual(
        expected
          .map((v) => ({ ...v, valid_from: asText(v.valid_from), valid_to: asText(v.valid_to) }))
          .sort(
            (a, b) => a.valid_from!.localeCompare(b.valid_from!) || a.event_type.localeCompare(b.event_type),
          ),
      );
      expect(
        stored.rows.some((r) => r.valid_to !== null),
        `${account} saw a change`,
      ).toBe(true);
    }
  });

  it("the number catalog keeps one snapshot per day; a month later some prices differ", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 93,
      start: START,
      days: 40,
      accounts: 1,
      callsPerDay: 5,
      now: "2026-08-20T00:00:00Z",
    });
    const db = await createDatabase();
    const base = sandboxConfig(sandbox);
    const config = {
      ...base,
      accounts: base.accounts.map((a) => ({
        ...a,
        streams: ["number_catalog"],
        sources: {
          subAccounts: [],
          brandIds: undefined,
          validationTokens: [],
          numberCatalog: { countries: [1], textEnabledOnly: false },
        },
      })),
    };
    const catalog = async () =>
      (await (await fetch(`${sandbox.url}/_sandbox/truth/number_catalog?country=1`)).text())
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const august = await catalog();
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    await setSandboxClock(sandbox, "2026-09-03T00:00:00Z");
    const september = await catalog();
    await runAt(db.warehouse, config, sandbox, { command: "run" });
    const snapshot = async (day: string) =>
      (await landedRows(db.warehouse, "number_catalog", "master")).filter((row) =>
        row.startsWith(`["${day}"`),
      );
    expect(await snapshot("2026-08-20")).toEqual(
      expectedFromTruth("number_catalog", august, { today: "2026-08-20", country: "1" }),
    );
    expect(await snapshot("2026-09-03")).toEqual(
      expectedFromTruth("number_catalog", september, { today: "2026-09-03", country: "1" }),
    );
    const changed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.number_catalog a JOIN platform.number_catalog b
        ON a.number = b.number AND a.city_id = b.city_id
      WHERE a.snapshot_date = '2026-08-20' AND b.snapshot_date = '2026-09-03' AND a.monthly_fee <> b.monthly_fee`.execute(
      db.warehouse.db,
    );
    expect(changed.rows[0]?.n).toBeGreaterThan(0);
  });
});
