import { sql } from "kysely";
import type { AccountConfig, EtlConfig } from "../../src/config/config.js";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { capturingLogger } from "../helpers/capturing-logger.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { FaultRule } from "./fault-proxy.js";
import { expectSecretsNowhere, runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue 18 item 12: a platform that renames its credential fields (`api_key` → `apiKey` on the
 * sub-accounts, `access_token` → `accessToken` on the trunks), copies a trunk's token into a field
 * whose name says nothing (`sip_uri`) and echoes a sub-account's key in an error message. No key
 * and no token may land anywhere: not in `etl.rejects` (nor what `rejects list` prints), not in
 * `_extra`, not in an error stored with a window, not in a log line. The trunks still load, equal
 * to what the platform served with the secrets masked.
 */
const START = "2026-08-01";
const ECHO_DAY = "2026-08-02";

it.override({
  sandboxOptions: {
    seed: 181,
    start: START,
    days: 3,
    accounts: 3,
    callsPerDay: 20,
    now: "2026-08-04T03:00:00Z",
  },
});

type Json = Record<string, unknown>;

/** `record` with `from` renamed to `to` (same value), the way the drifting platform sends it. */
function renamed(record: Json, from: string, to: string): Json {
  const { [from]: value, ...rest } = record;
  return value === undefined ? record : { ...rest, [to]: value };
}

/** A trunk as the drifting platform serves it: the token renamed, and copied into a neutral field. */
function driftedTrunk(trunk: Json): Json {
  return {
    ...renamed(trunk, "access_token", "accessToken"),
    sip_uri: `sip:${String(trunk.access_token)}@edge`,
  };
}

/** A sub-account as the drifting platform serves it: its key renamed, and quoted in a note. */
function driftedSubAccount(sub: Json): Json {
  return { ...renamed(sub, "api_key", "apiKey"), note: `created with key ${String(sub.api_key)}` };
}

/** The key the platform echoes in an error message (a sub-account's; set by the test, read per request). */
let echoedKey = "";

it.override("faultRule", () => {
  const rule: FaultRule = (url) => {
    if (url.pathname === "/v1/sub-organizations") {
      return {
        rewrite: (body) => ({
          ...(body as Json),
          sub_organizations: ((body as Json).sub_organizations as Json[]).map(driftedSubAccount),
        }),
      };
    }
    if (/^\/v1\/sub-organizations\/\d+$/.test(url.pathname)) {
      return { rewrite: (body) => driftedSubAccount(body as Json) };
    }
    if (url.pathname === "/v1/trunks") {
      return {
        rewrite: (body) => ({
          ...(body as Json),
          sip_trunks: ((body as Json).sip_trunks as Json[] | null)?.map(driftedTrunk) ?? null,
        }),
      };
    }
    if (url.pathname === "/v1/cdr" && url.searchParams.get("from") === ECHO_DAY) {
      return { status: 422, body: { message: `filter refused for key ${echoedKey}` } };
    }
    return undefined;
  };
  return rule;
});

describe("secrets under renamed fields", () => {
  it("masks keys and tokens by name and by value in rejects, _extra, errors and logs; trunks still load", async ({
    rig,
  }) => {
    const { sandbox, db, apiUrl } = rig;
    const [master, ...subs] = sandbox.world.accounts;
    echoedKey = subs[0]!.apiKey;
    const base = sandboxConfig(sandbox, { accountNames: ["master"], baseUrl: apiUrl });
    const config: EtlConfig = {
      ...base,
      accounts: base.accounts.map(
        (a): AccountConfig => ({
          ...a,
          streams: ["cdrs", "sip_trunks", "sub_accounts"],
          sources: {
            subAccounts: subs.map((s) => s.id),
            brandIds: undefined,
            validationTokens: [],
            numberCatalog: { countries: [], textEnabledOnly: false },
          },
        }),
      ),
    };
    // The product's own logger (as the CLI builds it), writing into `lines`.
    const lines: string[] = [];
    const secrets = new KnownSecrets();
    const log = capturingLogger(lines, secrets);
    const result = await runAt(db.warehouse, config, sandbox, { command: "run" }, { log, secrets });

    // The sub-accounts' keys could not be read under their new name: their streams fail, saying so.
    expect(result.exitCode).toBe(1);
    for (const sub of subs) {
      const failed = result.streams.filter((s) => s.account === `master-sub-${sub.id}`);
      expect(failed.length).toBeGreaterThan(0);
      for (const stream of failed) expect(stream.errors.join()).toContain("the answer is not a sub-account");
    }
    // The window whose error echoed a key failed, with the key masked in what it says.
    const cdrs = result.streams.find((s) => s.account === "master" && s.stream === "cdrs")!;
    expect(cdrs.windowsFailed).toBeGreaterThan(0);
    const stored = await sql<{ error: string }>`
      SELECT error FROM etl.run_slices WHERE stream = 'cdrs' AND status = 'failed'`.execute(db.warehouse.db);
    expect(stored.rows.map((r) => r.error).join("\n")).toContain("filter refused for key ***");

    // Every trunk loads, equal to what was served, the token masked by name and by value in `_extra`.
    const trunks = await truthRecords(sandbox, "sip_trunks", "master");
    expect(trunks.length).toBeGreaterThan(0);
    const served = trunks.map((t) => {
      const { access_token: _token, ...rest } = t;
      return { ...rest, accessToken: "***", sip_uri: "sip:***@edge" };
    });
    expect(await landedRows(db.warehouse, "sip_trunks", "master")).toEqual(
      expectedFromTruth("sip_trunks", served),
    );

    // Every sub-account record is a reject (no api_key): stored with its key masked both ways.
    const rejects = await sql<{ raw: Json }>`
      SELECT raw FROM etl.rejects WHERE stream = 'sub_accounts' AND account = 'master'`.execute(
      db.warehouse.db,
    );
    const truthSubs = await truthRecords(sandbox, "sub_accounts", "master");
    expect(rejects.rows.length).toBe(truthSubs.length);
    for (const { raw } of rejects.rows) {
      expect(raw.apiKey).toBe("***");
      expect(raw.note).toBe("created with key ***");
    }

    const keys = [master!.apiKey, ...subs.map((s) => s.apiKey), ...truthSubs.map((s) => String(s.api_key))];
    const tokens = trunks.map((t) => String(t.access_token));
    expect(tokens.every((t) => t.length >= 16)).toBe(true);
    await expectSecretsNowhere(db.warehouse, [...keys, ...tokens], lines);
    expect(JSON.stringify(result)).not.toMatch(new RegExp([...keys, ...tokens].join("|")));

    // What an operator reads: `rejects list`, as text and as JSON.
    for (const args of [
      ["rejects", "list", "--stream", "sub_accounts"],
      ["rejects", "list", "--json"],
    ]) {
      const listed = await runCli(args, { env: { DATABASE_URL: db.url } });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain("apiKey");
      for (const secret of [...keys, ...tokens]) expect(listed.stdout + listed.stderr).not.toContain(secret);
    }
  });
});
