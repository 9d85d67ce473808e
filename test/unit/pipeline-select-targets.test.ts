import { describe, expect, it } from "vitest";
import { type AccountConfig, defaultFileSettings, type EtlConfig } from "../../src/config/config.js";
import { UsageError } from "../../src/core/errors.js";
import { Secret } from "../../src/core/secret.js";
import { selectRunTargets } from "../../src/pipeline/plan/select-targets.js";

function configWith(streams: readonly string[]): EtlConfig {
  const account: AccountConfig = {
    name: "acme",
    baseUrl: "http://127.0.0.1:1",
    apiKeyEnv: "ACME_KEY",
    apiKey: new Secret("k"),
    rate: { requestsPerSecond: 10, burst: 20, concurrency: 4 },
    streams,
  };
  return { ...defaultFileSettings(), accounts: [account], databaseUrl: undefined, source: undefined };
}

describe("a stream's prerequisites", () => {
  it("transcriptions without trunks and numbers enabled is a usage error naming what to add", () => {
    expect(() => selectRunTargets(configWith(["cdrs", "transcriptions"]))).toThrow(
      new UsageError(
        "account acme: stream transcriptions needs sip_trunks and numbers enabled too (it reads what their tables hold); add sip_trunks, numbers to the account's streams",
      ),
    );
  });

  it("with them enabled, transcriptions may run alone (their tables are loaded by other runs)", () => {
    const targets = selectRunTargets(
      configWith(["cdrs", "sip_trunks", "numbers", "transcriptions"]),
      undefined,
      ["transcriptions"],
    );
    expect(targets.map((t) => t.streams.map((s) => s.name))).toEqual([["transcriptions"]]);
  });
});
