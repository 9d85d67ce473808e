import { resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { describe, expect, it } from "vitest";

describe("sandbox options", () => {
  it("applies the documented defaults", () => {
    const options = resolveSandboxOptions();
    expect(options).toMatchObject({
      port: 0,
      host: "127.0.0.1",
      seed: 1,
      start: "2026-08-01",
      days: 90,
      accounts: 3,
      callsPerDay: 2000,
      latencyMs: 0,
      rateLimit: 0,
      maxPerPage: 100,
      now: Date.parse("2026-10-30T00:00:00Z"),
      lateShare: 0.02,
      shuffle: false,
      cacheRows: 150_000,
    });
    expect(options.faults.name).toBe("none");
  });

  it.each([
    [{ port: 65_536 }, /^port must be an integer from 0 to 65535$/],
    [{ days: 0 }, /^days must be an integer >= 1$/],
    [{ accounts: 1.5 }, /^accounts must be/],
    [{ rateLimit: -1 }, /^rateLimit must be a number >= 0$/],
    [{ rateLimit: Number.NaN }, /^rateLimit must be a number >= 0$/],
    [{ start: "2026-02-30" }, /^start: invalid date 2026-02-30$/],
    [{ start: "08/01/2026" }, /^start: expected YYYY-MM-DD/],
    [{ now: "soon" }, /^now must be an ISO date-time or "real"/],
    [{ lateShare: 1.1 }, /^lateShare must be between 0 and 1$/],
    [{ maxPerPage: 0 }, /^maxPerPage must be an integer >= 1$/],
    [{ faults: "nope" }, /^faults: expected none, flaky, hostile or a readable JSON file/],
  ])("refuses %j with a message that starts with the option's name", (options, message) => {
    expect(() => resolveSandboxOptions(options)).toThrow(message);
  });
});
