import { describe, expect, it } from "vitest";
import { formatStreamStatus } from "../../src/cli/status-command.js";
import type { StreamStatus } from "../../src/warehouse/stream-status.js";

function status(stream: string, overrides: Partial<StreamStatus> = {}): StreamStatus {
  return {
    account: "acme",
    stream,
    completedWindows: 0,
    firstCompleted: null,
    completedThrough: null,
    lastCompleted: null,
    gaps: [],
    openWindows: [],
    failedWindows: [],
    lastRun: null,
    rows: 12,
    rejectsPending: 0,
    rejectsTotal: 0,
    ...overrides,
  } as StreamStatus;
}

describe("status lines", () => {
  it("says a full-refresh stream has no windows instead of reporting none completed", () => {
    expect(formatStreamStatus(status("invoices"))[1]).toBe(
      "  full refresh: every run reads all pages (no windows)",
    );
    expect(formatStreamStatus(status("cdrs"))[1]).toBe("  no completed window");
  });
});
