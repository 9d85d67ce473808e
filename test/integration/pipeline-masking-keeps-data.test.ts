import { sql } from "kysely";
import type { AccountConfig, EtlConfig } from "../../src/config/config.js";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { capturingLogger } from "../helpers/capturing-logger.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { FaultRule } from "./fault-proxy.js";
import { expectedRows, runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue 32 item 1: a platform whose trunks carry credentials equal to ordinary column values
 * (`sip_password: "answered"`, `auth_secret: "United States"`, an `access_token` equal to a phone
 * number, a CDR destination or a trunk name, an `auth_token` equal to a call's uuid) once had the
 * disposition, destination, numbers and trunk of most CDRs stored as `***`, exit 0. Learnt values
 * never rewrite a typed column: the CDRs equal the truth row by row. Each planted value is masked
 * where it sits (its credential-named field, in `_extra` and in a reject's raw row), and a strong
 * token the platform sends under a credential name is masked in free text too (`_extra`, a
 * reject's raw row, an error message in the log).
 */
const STRONG = "tk_live_7Qm2Zr9Xc4Vb8Nn1Lp6Hs3Jd5Kf0Gw";

it.override({
  sandboxOptions: {
    seed: 3202,
    start: "2026-08-01",
    days: 3,
    accounts: 1,
    callsPerDay: 100,
    now: "2026-08-04T03:00:00Z",
  },
});

type Json = Record<string, unknown>;

/** Values of real CDRs the trunks' credentials are set to (set by the test before the run). */
const planted = { callerid: "", destination: "", uuid: "", trunkName: "" };
/** Whether the trunk list already failed once (its first attempt answers 503, naming the token). */
let trunksFailedOnce = false;

/** The trunks as the platform serves them, with credentials equal to column values planted. */
function plantedTrunks(trunks: Json[]): Json[] {
  return trunks.map((trunk, index) => {
    const common = {
      ...trunk,
      sip_password: "answered",
      auth_secret: "United States",
      provisioning_note: `rotated with ${STRONG}`,
    };
    if (index === 0) return { ...common, access_token: planted.callerid, client_secret: STRONG };
    // A strong token in a typed column: learnt values never rewrite a column, whatever their strength.
    if (index === 1)
      return { ...common, access_token: planted.destination, auth_token: planted.uuid, label: STRONG };
    // Invalid (talk_time below 0): a reject, its raw row stored masked.
    return { ...common, access_token: planted.trunkName, talk_time: -5 };
  });
}

it.override("faultRule", () => {
  const rule: FaultRule = (url) => {
    if (url.pathname !== "/v1/trunks") return undefined;
    if (!trunksFailedOnce) {
      trunksFailedOnce = true;
      return {
        status: 503,
        body: { message: `auth backend refused ${STRONG} for answered`, client_secret: STRONG },
      };
    }
    return {
      rewrite: (body) => ({
        ...(body as Json),
        sip_trunks: plantedTrunks((body as Json).sip_trunks as Json[]),
      }),
    };
  };
  return rule;
});

/** The most frequent value of `field` among `rows`, other than `except`. */
function mostFrequent(rows: readonly Json[], field: string, except: readonly unknown[] = []): string {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const value = row[field];
    if (typeof value === "string" && !except.includes(value)) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

describe("credentials equal to column values", () => {
  it("never rewrite a CDR; they are masked where they sit, a strong token in free text too", async ({
    rig,
  }) => {
    const { sandbox, db, apiUrl } = rig;
    const cdrs = await truthRecords(sandbox, "cdrs", "master");
    const trunks = await truthRecords(sandbox, "sip_trunks", "master");
    expect(trunks).toHaveLength(3);
    planted.callerid = String(trunks[0]!.callerid);
    planted.destination = mostFrequent(cdrs, "destination", ["United States"]);
    planted.uuid = String(cdrs[0]!.uuid);
    planted.trunkName = String(trunks[1]!.name);
    // The planted values are what most CDRs hold.
    const holding = cdrs.filter(
      (c) =>
        c.disposition === "answered" ||
        c.destination === "United States" ||
        c.destination === planted.destination ||
        c.from === planted.callerid ||
        c.to === planted.callerid ||
        c.sip_trunk === planted.trunkName,
    );
    expect(holding.length / cdrs.length).toBeGreaterThan(0.8);

    const base = sandboxConfig(sandbox, { accountNames: ["master"], baseUrl: apiUrl, maxRejectShare: 0.5 });
    const config: EtlConfig = {
      ...base,
      accounts: base.accounts.map((a): AccountConfig => ({ ...a, streams: ["cdrs", "sip_trunks"] })),
    };
    // The product's own logger (as the CLI builds it), writing into `lines`.
    const lines: string[] = [];
    const secrets = new KnownSecrets();
    const log = capturingLogger(lines, secrets);
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" }, { log, secrets });
    // One trunk is a reject (quarantined, exit 3); nothing failed.
    expect(result.exitCode, JSON.stringify(result.streams.flatMap((s) => s.errors))).toBe(3);

    // Every CDR as the platform holds it: no disposition, destination, number, uuid or trunk masked.
    expect(await landedRows(db.warehouse, "cdrs", "master")).toEqual(
      await expectedRows(sandbox, "cdrs", "master"),
    );

    // The valid trunks: each planted credential masked by its name in `_extra`, the strong token in
    // free text; the token in the typed `label` column kept as sent.
    const served = plantedTrunks(trunks)
      .slice(0, 2)
      .map((trunk) => {
        const { access_token: _token, ...rest } = trunk;
        const masked: Json = {
          ...rest,
          sip_password: "***",
          auth_secret: "***",
          provisioning_note: "rotated with ***",
        };
        if ("client_secret" in trunk) masked.client_secret = "***";
        if ("auth_token" in trunk) masked.auth_token = "***";
        return masked;
      });
    expect(served[1]!.label).toBe(STRONG);
    expect(await landedRows(db.warehouse, "sip_trunks", "master")).toEqual(
      expectedFromTruth("sip_trunks", served),
    );

    // The invalid trunk's raw row: its credentials masked by name, the strong token in its free
    // text; its callerid (equal to the first trunk's token) and its name kept.
    const rejects = await sql<{ raw: Json }>`
      SELECT raw FROM etl.rejects WHERE stream = 'sip_trunks' AND account = 'master'`.execute(
      db.warehouse.db,
    );
    expect(rejects.rows.map((r) => r.raw)).toEqual([
      {
        ...trunks[2],
        talk_time: -5,
        access_token: "***",
        sip_password: "***",
        auth_secret: "***",
        provisioning_note: "rotated with ***",
      },
    ]);
    expect(trunks[2]!.callerid).toBe(planted.callerid);

    // The error of the failed first attempt, in the log: the strong token masked, the weak word not.
    const retried = lines.filter((line) => line.includes("auth backend refused"));
    expect(retried.length).toBeGreaterThan(0);
    for (const line of retried) expect(line).toContain("auth backend refused *** for answered");
    expect(lines.join("\n")).not.toContain(STRONG);
  });
});
