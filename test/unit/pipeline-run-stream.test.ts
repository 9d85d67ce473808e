import { describe, expect, it } from "vitest";
import type { AccountConfig } from "../../src/config/config.js";
import { AuthError } from "../../src/core/errors.js";
import { newTally, type StreamJob, summarize } from "../../src/pipeline/run/run-stream.js";
import { getStream } from "../../src/streams/registry.js";
import { RunWrittenKeys } from "../../src/warehouse/load/run-written-keys.js";

/** A job of `stream` for account acme, sharing `accountAbort` with the account's other streams. */
function job(stream: string, accountAbort: AbortController): StreamJob {
  return {
    id: `acme/${stream}`,
    account: { name: "acme" } as AccountConfig,
    stream: getStream(stream),
    plan: [],
    settings: { settleHours: 72, maxRejectShare: 0.01, maxShrinkShare: 0.5, maxMissingChargeShare: 0.05 },
    revision: "2024",
    client: undefined as never,
    concurrency: 1,
    streamAbort: new AbortController(),
    accountAbort,
    writtenKeys: new RunWrittenKeys("acme", () => 1),
    tally: { ...newTally("acme", stream, 2), windowsNotRun: 2 },
  };
}

describe("summarize", () => {
  it("a 401 met by one stream's request stops every stream, each naming itself", () => {
    const accountAbort = new AbortController();
    const jobs = ["cdrs", "short_link_metrics", "invoices"].map((name) => job(name, accountAbort));
    accountAbort.abort(
      new AuthError(
        "account acme: the platform rejected the API key (401 Unauthorized) on GET /v1/billing/invoices",
      ),
    );
    const summaries = jobs.map(summarize);
    expect(summaries.map((s) => s.status)).toEqual(["auth_failed", "auth_failed", "auth_failed"]);
    expect(summaries.map((s) => s.errors[0])).toEqual([
      "stream cdrs stopped: account acme: the platform rejected the API key (401 Unauthorized) on GET /v1/billing/invoices",
      "stream short_link_metrics stopped: account acme: the platform rejected the API key (401 Unauthorized) on GET /v1/billing/invoices",
      "stream invoices stopped: account acme: the platform rejected the API key (401 Unauthorized) on GET /v1/billing/invoices",
    ]);
  });
});
