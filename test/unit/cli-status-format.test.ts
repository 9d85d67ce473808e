import { describe, expect, it } from "vitest";
import { formatStreamStatus } from "../../src/cli/status-command.js";
import type { StreamStatus } from "../../src/warehouse/state/stream-status.js";

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
    unsettledWindows: [],
    heldWindows: [],
    failedWindows: [],
    lastRun: null,
    rows: 12,
    rejectsPending: 0,
    rejectsTotal: 0,
    tracked: {},
    ...overrides,
  } as StreamStatus;
}

describe("status lines", () => {
  it("says a full-refresh stream has no windows instead of reporting none completed", () => {
    expect(formatStreamStatus(status("invoices"))[1]).toBe(
      "  full refresh: every run reads all pages (no windows)",
    );
    expect(formatStreamStatus(status("cdrs"))[1]).toBe("  no settled window yet");
  });

  it("shows settled-through, the unsettled windows, held and failed ones, and how the stream ended in its last run", () => {
    const at = new Date("2026-09-15T02:15:00Z");
    const attempt = (slice: string, status: "succeeded" | "failed" | "held", error: string | null) => ({
      slice,
      start: slice.slice(0, 10),
      end: slice.slice(12),
      status,
      error,
      runId: 7,
      at,
    });
    const lines = formatStreamStatus(
      status("cdrs", {
        completedWindows: 45,
        firstCompleted: "2026-08-01",
        completedThrough: "2026-09-11",
        lastCompleted: "2026-09-11",
        unsettledWindows: [attempt("2026-09-12..2026-09-13", "succeeded", null)],
        heldWindows: [attempt("2026-09-13..2026-09-14", "held", "account acme, stream cdrs, …")],
        failedWindows: [attempt("2026-09-14..2026-09-15", "failed", "HTTP 503")],
        lastRun: {
          runId: 7,
          command: "run",
          status: "partial",
          startedAt: at,
          finishedAt: at,
          host: "etl-1",
          pid: 12,
          streamStatus: "failed",
          errors: ["2026-09-14..2026-09-15: HTTP 503"],
        },
      }),
      72,
    );
    expect(lines).toEqual([
      "acme/cdrs",
      "  settled through 2026-09-11 (45 windows from 2026-08-01, latest ends 2026-09-11)",
      "  unsettled (loaded, read again by every run until read 72 h after their end): 2026-09-12..2026-09-13 (run 7)",
      "  held open 2026-09-13..2026-09-14 in run 7: account acme, stream cdrs, …",
      "  failed 2026-09-14..2026-09-15 in run 7: HTTP 503",
      "  last run 7 (run) partial, started 2026-09-15T02:15:00.000Z, finished 2026-09-15T02:15:00.000Z; this stream: failed (2026-09-14..2026-09-15: HTTP 503)",
      "  rows 12, rejects 0 pending of 0",
    ]);
  });
});
