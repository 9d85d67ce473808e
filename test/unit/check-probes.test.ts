import { describe, expect, it } from "vitest";
import { checkExitCode, checkVerdict } from "../../src/check/check-item.js";
import { PROBE_ID, streamProbe } from "../../src/check/stream-probe.js";
import type { AccountConfig } from "../../src/config/config.js";
import { Secret } from "../../src/core/secret.js";
import { cutNotes } from "../../src/pipeline/run/run-pipeline.js";
import { getStream } from "../../src/streams/registry.js";

const account: AccountConfig = {
  name: "acme",
  baseUrl: "https://api.example.com",
  apiKeyEnv: "ACME_KEY",
  apiKey: new Secret("k-123456789"),
  rate: { requestsPerSecond: 10, burst: 20, concurrency: 4 },
  streams: [],
  sources: {
    subAccounts: [],
    brandIds: undefined,
    validationTokens: [],
    numberCatalog: { countries: [], textEnabledOnly: false },
  },
};

describe("check: the probe of each stream, from its own definition", () => {
  it("a windowed list asks today's window, one row (the platform's parameter names, per revision)", () => {
    expect(streamProbe(getStream("cdrs"), account, "2024", "2026-08-09")).toMatchObject({
      path: "/v1/cdr",
      query: { from: "2026-08-09", to: "2026-08-09", type: "placed", page: 1, per_page: 1 },
      notFoundIsOk: false,
    });
    expect(streamProbe(getStream("messages"), account, "2026", "2026-08-09")).toMatchObject({
      path: "/v3/messages",
      query: { sent_after: "2026-08-09", sent_before: "2026-08-10", page: 1, per_page: 1 },
    });
    expect(streamProbe(getStream("numbers"), account, "2026", "2026-08-09")).toMatchObject({
      path: "/v1/numbers",
      query: { page: 1, per_page: 1 },
    });
  });

  it("a lookup asks about a made-up id (404 from a permitted key); a list behind a discovery asks the discovery", () => {
    expect(streamProbe(getStream("validations"), account, "2024", "2026-08-09")).toMatchObject({
      path: `/v1/validation/${PROBE_ID}`,
      notFoundIsOk: true,
    });
    expect(streamProbe(getStream("brand_appeals"), account, "2024", "2026-08-09")).toMatchObject({
      path: "/v3/10dlc/brands",
      notFoundIsOk: false,
    });
    const withCountry = {
      ...account,
      sources: { ...account.sources!, numberCatalog: { countries: [44], textEnabledOnly: false } },
    };
    expect(streamProbe(getStream("number_catalog"), withCountry, "2024", "2026-08-09").path).toBe(
      "/v1/buy/countries/44/cities",
    );
  });
});

describe("check: exit codes and notes", () => {
  it("2 on any failure, 1 when something could not be checked, 0 with warnings", () => {
    const item = (status: "ok" | "warn" | "fail" | "unknown") => ({
      subject: "s",
      item: "i",
      status,
      detail: "d",
    });
    expect(checkExitCode([item("ok"), item("warn")])).toBe(0);
    expect(checkExitCode([item("ok"), item("unknown")])).toBe(1);
    expect(checkExitCode([item("unknown"), item("fail")])).toBe(2);
    expect(checkVerdict([item("ok"), item("ok"), item("fail")])).toBe("check: 2 ok, 1 fail (exit 2)");
  });

  it("a last day after today is cut to today, in a note", () => {
    expect(
      cutNotes(
        { command: "backfill", streams: ["cdrs"], from: "2026-08-01", to: "2026-08-31" },
        "2026-08-09",
      ),
    ).toEqual(["note: --to 2026-08-31 is after today (2026-08-09, UTC): cut to 2026-08-09"]);
    expect(cutNotes({ command: "run", until: "2026-08-10" }, "2026-08-09")).toEqual([
      "note: --until 2026-08-10 is after today (2026-08-09, UTC): cut to 2026-08-09",
    ]);
    expect(cutNotes({ command: "run", until: "2026-08-09" }, "2026-08-09")).toEqual([]);
    expect(
      cutNotes(
        { command: "backfill", streams: ["cdrs"], from: "2026-09-01", to: "2026-09-02" },
        "2026-08-09",
      ),
    ).toEqual(["note: --from 2026-09-01 is after today (2026-08-09, UTC): nothing to load"]);
  });
});
