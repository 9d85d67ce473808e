import { describe, expect, it } from "vitest";
import { PlatformClockWatch, parseDateHeader } from "../../src/pipeline/extract/platform-clock.js";
import { capturingLogger } from "../helpers/capturing-logger.js";

describe("the platform's clock", () => {
  it("reads an HTTP Date header, and nothing from a missing or bad one", () => {
    expect(parseDateHeader("Fri, 30 Oct 2026 00:00:05 GMT")).toBe(Date.parse("2026-10-30T00:00:05Z"));
    expect(parseDateHeader(undefined)).toBeUndefined();
    expect(parseDateHeader("soon")).toBeUndefined();
  });

  it("logs a skew beyond 5 minutes once per run, either way, and none within it", () => {
    const lines: string[] = [];
    let local = 1_000_000;
    const runStartedAt = Date.parse("2026-10-30T02:00:00Z");
    const watch = new PlatformClockWatch({
      log: capturingLogger(lines),
      clock: { now: () => local },
      runStartedAt,
    });
    local += 60_000;
    // One minute into the run the run's clock reads 02:01; the platform says 02:04: within 5 minutes.
    watch.observe({ platformMs: Date.parse("2026-10-30T02:04:00Z"), receivedAt: local }, "acme");
    expect(lines).toHaveLength(0);
    expect(watch.runNow()).toBe(Date.parse("2026-10-30T02:01:00Z"));
    watch.observe({ platformMs: Date.parse("2026-10-30T01:51:00Z"), receivedAt: local }, "acme");
    watch.observe({ platformMs: Date.parse("2026-10-30T03:00:00Z"), receivedAt: local }, "acme");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, account: "acme", skewMs: -600_000 });
    expect(lines[0]).toContain("10 min behind");
  });
});
