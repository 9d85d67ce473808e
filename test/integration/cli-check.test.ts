import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import { apiKeySchema } from "@telecom-etl/platform/api-key.js";
import { STREAMS } from "../../src/streams/registry.js";
import { checkItemsOf } from "../helpers/check-items.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { platform } from "./sandbox-client.js";

/**
 * `telecom-etl check` against the sandbox and the file's warehouse: one account that is right, one
 * whose key is restricted to `calls:read`, one with a key the platform does not know, one whose host
 * does not resolve and one whose port is closed. Every item is one line; exit 2.
 */

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The files of sql/migrations (the oracle of "all N applied"). */
const MIGRATIONS = readdirSync(new URL("../../sql/migrations", import.meta.url)).filter((f) =>
  f.endsWith(".sql"),
);

const it = fixtureTest.extend("setup", { scope: "file" }, async ({ rig }) => {
  const { sandbox } = rig;
  const created = await platform(sandbox, "/v1/api-keys", {
    method: "POST",
    body: { label: "calls only", permissions: { calls: "read" } },
  });
  const restricted = apiKeySchema.parse(created.body).value!;
  const port = await closedPort();
  const config = [
    "accounts:",
    `  - { name: good, base_url: "${sandbox.url}", api_key_env: GOOD_KEY }`,
    `  - { name: restricted, base_url: "${sandbox.url}", api_key_env: RESTRICTED_KEY, streams: [cdrs, invoices] }`,
    `  - { name: badkey, base_url: "${sandbox.url}", api_key_env: BAD_KEY, streams: [cdrs] }`,
    `  - { name: typo, base_url: "http://no-such-host.invalid", api_key_env: GOOD_KEY, streams: [cdrs] }`,
    `  - { name: closed, base_url: "http://127.0.0.1:${port}", api_key_env: GOOD_KEY, streams: [cdrs] }`,
  ].join("\n");
  const { mkdtemp, writeFile } = await import("node:fs/promises");
  const dir = await mkdtemp("/tmp/telecom-etl-check-");
  await writeFile(`${dir}/telecom-etl.yaml`, `${config}\n`);
  const env: Record<string, string> = {
    DATABASE_URL: rig.db.url,
    TELECOM_ETL_CONFIG: `${dir}/telecom-etl.yaml`,
    GOOD_KEY: sandbox.world.accounts[0]!.apiKey,
    RESTRICTED_KEY: restricted,
    BAD_KEY: "0".repeat(32),
    // The run's clock is the sandbox's: the clock item must find no skew.
    TELECOM_ETL_NOW: new Date(sandbox.runtime.clock.now()).toISOString(),
  };
  return { env, port };
});
it.override({ sandboxOptions: { seed: 15, start: "2026-08-01", days: 3, accounts: 1, callsPerDay: 20 } });

describe("telecom-etl check", () => {
  it("one line per item: the good account ok for every stream; the restricted key, the bad key and both unreachable hosts fail; exit 2", async ({
    setup,
  }) => {
    const started = Date.now();
    const result = await runCli(["check"], { env: setup.env, timeoutMs: 180_000 });
    const elapsed = Date.now() - started;
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(2);
    expect(result.stdout, result.stderr.slice(-2000)).not.toBe("");
    const items = checkItemsOf(result.stdout);
    const lines = result.stdout.trim().split("\n");
    // Every line is an item, but the verdict.
    expect(items.size).toBe(lines.length - 1);
    expect(lines.at(-1)).toMatch(/^check: \d+ ok, .*\d+ fail.* \(exit 2\)$/);

    const good = [...items].filter(([key]) => key.startsWith("account good: "));
    expect(good.filter(([, v]) => v.status !== "ok")).toEqual([]);
    // One line per stream of the registry (every stream is enabled for `good`), plus reachable, key, revision, clock.
    expect(good.map(([key]) => key).sort()).toEqual(
      [
        ...Object.keys(STREAMS).map((s) => `account good: stream ${s}`),
        "account good: reachable",
        "account good: key",
        "account good: API revision",
        "account good: clock",
      ].sort(),
    );
    expect(items.get("account good: API revision")?.detail).toMatch(
      /^2024 \(auto: GET \/v1\/cdrs answered 404\)$/,
    );

    expect(items.get("account restricted: stream cdrs")?.status).toBe("ok");
    expect(items.get("account restricted: stream invoices")).toEqual({
      status: "fail",
      detail:
        'the key lacks the permission billing:read (403 on GET /v1/billing/invoices); grant billing:read to the key, or remove "invoices" from the account\'s streams',
    });
    expect(items.get("account badkey: reachable")?.status).toBe("ok");
    expect(items.get("account badkey: key")?.status).toBe("fail");
    expect(items.get("account badkey: key")?.detail).toMatch(
      /^the platform rejected the API key \(401 Unauthorized.*\) on GET \S+; check the API key in env var BAD_KEY$/,
    );
    expect(items.get("account typo: reachable")).toEqual({
      status: "fail",
      detail:
        "cannot reach http://no-such-host.invalid: its host name does not resolve (ENOTFOUND); check the account's base_url for a typo",
    });
    expect(items.get("account closed: reachable")).toEqual({
      status: "fail",
      detail: `cannot reach http://127.0.0.1:${setup.port}: the connection was refused (ECONNREFUSED): nothing listens there; check the host and port of the account's base_url, and that the platform is up`,
    });
    // An unreachable account is not checked further: no key, revision or stream line for it.
    expect([...items.keys()].filter((k) => k.startsWith("account typo: "))).toEqual([
      "account typo: reachable",
    ]);

    expect(items.get("warehouse: reachable")?.status).toBe("ok");
    expect(items.get("warehouse: migrations")).toEqual({
      status: "ok",
      detail: `all ${MIGRATIONS.length} applied`,
    });
    expect(items.get("dbt: installed")?.status).toBe("ok");
    expect(items.get("dbt: profile")?.status, items.get("dbt: profile")?.detail).toBe("ok");
    // Nothing was retried for long: the unreachable hosts stopped at once.
    expect(elapsed).toBeLessThan(60_000);
  });

  it("the BI role: usable with its password, the wrong password one fail line", async ({ setup }) => {
    const env = { ...setup.env, TELECOM_ETL_BI_READER_PASSWORD: "right-password-15" };
    const migrate = await runCli(["migrate"], { env });
    expect(migrate.code, migrate.stderr).toBe(0);
    const right = checkItemsOf(
      (await runCli(["check", "--accounts", "good", "--streams", "cdrs"], { env })).stdout,
    );
    expect(right.get("warehouse: BI role")?.detail).toMatch(
      /^\S+_bi_reader logs in with TELECOM_ETL_BI_READER_PASSWORD; analytics_marts is not built yet: run telecom-etl transform$/,
    );
    const wrong = await runCli(["check", "--accounts", "good", "--streams", "cdrs"], {
      env: { ...env, TELECOM_ETL_BI_READER_PASSWORD: "wrong-password" },
    });
    expect(wrong.code).toBe(2);
    expect(checkItemsOf(wrong.stdout).get("warehouse: BI role")).toEqual({
      status: "fail",
      detail: expect.stringMatching(
        /^\S+_bi_reader refuses the password in TELECOM_ETL_BI_READER_PASSWORD: run telecom-etl migrate to set it/,
      ),
    });
  });

  it("pending migrations are listed, a warning: the next command that loads applies them", async ({
    setup,
    createDatabase,
  }) => {
    const empty = await createDatabase({ migrate: false });
    const result = await runCli(["check", "--accounts", "good", "--streams", "cdrs"], {
      env: { ...setup.env, DATABASE_URL: empty.url },
    });
    const items = checkItemsOf(result.stdout);
    const names = MIGRATIONS.map((f) => f.replace(/\.sql$/, "")).sort();
    expect(items.get("warehouse: migrations")).toEqual({
      status: "warn",
      detail: `${names.length} of ${names.length} pending (${names.join(", ")}): the next command that loads applies them, or run telecom-etl migrate`,
    });
    expect(result.code, result.stdout).toBe(0);
  });

  it("a TELECOM_ETL_NOW far behind the machine's clock: the flag the item advises is one check accepts", async ({
    setup,
  }) => {
    // The variable is named (unset): the test harness would otherwise allow a past clock itself.
    const env = { ...setup.env, TELECOM_ETL_ALLOW_PAST_NOW: undefined };
    const args = ["check", "--accounts", "good", "--streams", "cdrs"];
    const refused = await runCli(args, { env });
    expect(refused.code, refused.stdout).toBe(2);
    const item = checkItemsOf(refused.stdout).get("environment: TELECOM_ETL_NOW");
    expect(item?.status).toBe("fail");
    const advised = /pass (--[a-z-]+)/.exec(item!.detail)?.[1];
    expect(advised, item!.detail).toBeDefined();
    const accepted = await runCli([...args.slice(0, 1), advised!, ...args.slice(1)], { env });
    expect(accepted.stderr).not.toMatch(/unknown option/);
    expect(checkItemsOf(accepted.stdout).get("environment: TELECOM_ETL_NOW")).toBeUndefined();
    expect(accepted.code, accepted.stdout + accepted.stderr.slice(-1000)).toBe(0);
  });
});
