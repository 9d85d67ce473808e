import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, PROCESS_SETTINGS, settingsOf } from "../../src/config/config.js";
import { UsageError } from "../../src/core/errors.js";
import { carriedConfigOf, settingsDiffering, unitConfig } from "../../src/distributed/unit-config.js";
import { workUnitSchema } from "../../src/distributed/work-unit.js";

/**
 * Issue 32 item 2: a unit carries its coordinator's settings (never a secret, never a process's own
 * setting) and the worker loads by them, or refuses in one line naming what differs.
 */
async function configFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "unit-cfg-"));
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

const COORDINATOR = [
  "accounts:",
  "  - name: acme",
  "    base_url: https://etl:s3cret-pass@api.example.com/",
  "    api_key_env: ACME_KEY",
  "    streams: [cdrs, short_link_metrics, invoices, messages, sip_trunks, numbers, call_webhooks]",
  "    sub_accounts: [17]",
  "  - name: globex",
  "    base_url: https://api.example.com",
  "    api_key_env: GLOBEX_KEY",
  "settle_hours: 72",
  "stream_options: { cdrs: { settle_hours: 96 } }",
  "per_page: 250",
  "alert_webhook_url: https://hooks.example.com/services/T0/B0/hook-secret",
  "metrics_pushgateway_url: https://push:push-secret@metrics.example.com",
  "distributed: { worker_units: 8 }",
  "",
].join("\n");

const ENV = { ACME_KEY: "acme-key-123", GLOBEX_KEY: "globex-key-456" };

async function coordinator() {
  return loadConfig({ file: await configFile("coordinator.yaml", COORDINATOR) }, ENV);
}

/** The coordinator's file edited as a worker not redeployed after a change. */
async function worker(edit: (text: string) => string, env: Record<string, string> = ENV) {
  return loadConfig({ file: await configFile("worker.yaml", edit(COORDINATOR)) }, env);
}

describe("a work unit's configuration", () => {
  it("carries every setting but the process's own, its account only, and no secret", async () => {
    const carried = carriedConfigOf(await coordinator(), "acme");
    expect(workUnitSchema.shape.config.parse(carried)).toEqual(carried);
    for (const key of PROCESS_SETTINGS) expect(carried).not.toHaveProperty(key);
    expect(carried).toMatchObject({
      settle_hours: 72,
      per_page: 250,
      stream_options: { cdrs: { settle_hours: 96 } },
    });
    expect(carried.accounts.map((a) => a.name)).toEqual(["acme"]);
    expect(carried.accounts[0]).toMatchObject({ api_key_env: "ACME_KEY", sub_accounts: [17] });
    const text = JSON.stringify(carried);
    for (const secret of ["s3cret-pass", "hook-secret", "push-secret", "acme-key-123", "globex-key-456"])
      expect(text).not.toContain(secret);
  });

  it("is the coordinator's on a worker whose file differs (3 streams, settle_hours 1): streams, settling, paging", async () => {
    const own = await worker((text) =>
      text
        .replace(
          "streams: [cdrs, short_link_metrics, invoices, messages, sip_trunks, numbers, call_webhooks]",
          "streams: [cdrs, short_link_metrics, invoices]",
        )
        .replace("settle_hours: 72", "settle_hours: 1")
        .replace("per_page: 250", "per_page: 50"),
    );
    const carried = carriedConfigOf(await coordinator(), "acme");
    const config = unitConfig(own, carried, ENV);
    const acme = config.accounts.find((a) => a.name === "acme")!;
    expect(acme.streams).toHaveLength(7);
    expect(acme.apiKey.reveal()).toBe("acme-key-123");
    // The worker's own base_url (with its credentials) is used: the unit carries it masked.
    expect(acme.baseUrl).toBe("https://etl:s3cret-pass@api.example.com");
    expect(settingsOf(config, "cdrs").settleHours).toBe(96);
    expect(settingsOf(config, "messages").settleHours).toBe(72);
    expect(config.perPage).toBe(250);
    // No process setting travels (a unit's load reads none): not the coordinator's webhook, say.
    expect(config.monitoring?.alertWebhookUrl).toBeUndefined();
    expect(settingsDiffering(own, carried)).toEqual(["settle_hours", "per_page", "accounts.acme.streams"]);
  });

  it("refuses in one line: an account the worker does not know, another platform URL, the key variable missing", async () => {
    const carried = carriedConfigOf(await coordinator(), "acme");
    const refusals = [
      [
        await worker((t) => t.replace("name: acme", "name: initech")),
        /^unknown account "acme" in this worker's config \(.*worker\.yaml; configured: initech, globex\): deploy the coordinator's config/,
      ],
      [
        await worker((t) => t.replace("@api.example.com/", "@api-old.example.com/")),
        /^account acme: this worker's config .* reads it from https:\/\/\S*\*\*\*@api-old\.example\.com, the coordinator's from https:\/\/\S*\*\*\*@api\.example\.com: /,
      ],
    ] as const;
    for (const [own, message] of refusals) {
      const error = (() => {
        try {
          unitConfig(own, carried, ENV);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain("s3cret-pass");
    }
    const renamed = carriedConfigOf(
      await loadConfig(
        { file: await configFile("c.yaml", COORDINATOR.replace("ACME_KEY", "ACME_API_KEY")) },
        { ...ENV, ACME_API_KEY: "acme-key-123" },
      ),
      "acme",
    );
    const unchanged = await worker((t) => t);
    expect(() => unitConfig(unchanged, renamed, ENV)).toThrow(
      /^account acme: env var ACME_API_KEY is not set; .*the coordinator's config reads the key from ACME_API_KEY \(this worker's config names ACME_KEY\)$/,
    );
  });
});
