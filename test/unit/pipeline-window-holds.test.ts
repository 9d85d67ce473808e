import { describe, expect, it } from "vitest";
import { checkAcceptedHolds, isAccepted, parseAcceptSpec } from "../../src/pipeline/holds/accepted-holds.js";
import { driftHold, missingChargeHold, shrinkHold } from "../../src/pipeline/holds/window-holds.js";
import type { LoadRow } from "../../src/streams/load-row.js";

const place = { account: "acme", stream: "short_link_metrics", window: "2026-08-05..2026-08-06" };

describe("the shrink rule", () => {
  it("holds a drop to zero and a shrink beyond the share of at least 10 rows, never a small or accepted one", () => {
    expect(shrinkHold(place, { stored: 1, fresh: 0 }, 0.5, false)?.reason).toBe("shrink");
    expect(shrinkHold(place, { stored: 10, fresh: 4 }, 0.5, false)?.reason).toBe("shrink");
    expect(shrinkHold(place, { stored: 10, fresh: 5 }, 0.5, false)).toBeNull();
    expect(shrinkHold(place, { stored: 9, fresh: 1 }, 0.5, false)).toBeNull();
    expect(shrinkHold(place, { stored: 0, fresh: 0 }, 0.5, false)).toBeNull();
    expect(shrinkHold(place, { stored: 34, fresh: 40 }, 0.5, false)).toBeNull();
    expect(shrinkHold(place, { stored: 34, fresh: 0 }, 0.5, true)).toBeNull();
    expect(shrinkHold({ ...place, window: "(all)" }, { stored: 4, fresh: 0 }, 0.5, false)?.message).toContain(
      "--accept-shrink acme/short_link_metrics",
    );
  });
});

describe("the missing-charge rule", () => {
  it("holds beyond the share and chance, not a few missing charges in a small window", () => {
    expect(missingChargeHold(place, { missing: 40, billable: 41 }, 0.05)?.reason).toBe("missing_charges");
    expect(missingChargeHold(place, { missing: 1, billable: 10 }, 0.05)).toBeNull();
    expect(missingChargeHold(place, { missing: 0, billable: 0 }, 0.05)).toBeNull();
  });
});

describe("the drift rule", () => {
  const row = (fee: string | null, extra: Record<string, unknown> | null): LoadRow => ({
    columns: { forward_fee: fee },
    extra,
  });
  const before = { rows: 100, nonNull: { forward_fee: 10 }, extraKeys: new Set(["carrier_trace_id"]) };

  it("names a vanished field and the new one that replaced it", () => {
    const fresh = [
      ...Array.from({ length: 10 }, () => row(null, { fwd_fee: "0.01" })),
      ...Array.from({ length: 90 }, () => row(null, null)),
    ];
    expect(driftHold(place, fresh, ["forward_fee"], before)?.message).toContain(
      "forward_fee missing (null in all 100 rows, set in 10.0% before), fwd_fee new: renamed?",
    );
  });

  it("is no drift without a new field, with a field seen before, with too few expected rows, or while the field is still set", () => {
    const gone = Array.from({ length: 100 }, () => row(null, null));
    expect(driftHold(place, gone, ["forward_fee"], before)).toBeNull();
    const known = Array.from({ length: 100 }, () => row(null, { carrier_trace_id: "x" }));
    expect(driftHold(place, known, ["forward_fee"], before)).toBeNull();
    const few = Array.from({ length: 40 }, () => row(null, { fwd_fee: "0.01" }));
    expect(driftHold(place, few, ["forward_fee"], before)).toBeNull();
    const still = [row("0.02", null), ...Array.from({ length: 99 }, () => row(null, { fwd_fee: "0.01" }))];
    expect(driftHold(place, still, ["forward_fee"], before)).toBeNull();
  });
});

describe("--accept-shrink / --accept-drift values", () => {
  it("reads ACCOUNT/STREAM[/DAY] and matches that stream's windows or that one", () => {
    const one = parseAcceptSpec("--accept-shrink", "acme/numbers");
    expect(isAccepted([one], { account: "acme", stream: "numbers", windowStart: null })).toBe(true);
    const day = parseAcceptSpec("--accept-shrink", "acme/short_link_metrics/2026-08-05");
    expect(
      isAccepted([day], { account: "acme", stream: "short_link_metrics", windowStart: "2026-08-05" }),
    ).toBe(true);
    expect(
      isAccepted([day], { account: "acme", stream: "short_link_metrics", windowStart: "2026-08-06" }),
    ).toBe(false);
    expect(() => parseAcceptSpec("--accept-shrink", "acme")).toThrow(
      /--accept-shrink "acme": expected ACCOUNT\/STREAM or ACCOUNT\/STREAM\/YYYY-MM-DD/,
    );
  });
});

describe("confirmations that name nothing", () => {
  it("are a usage error naming the value and what is known", () => {
    const spec = (account: string, stream: string) => ({ account, stream, windowStart: null });
    expect(() =>
      checkAcceptedHolds({ shrink: [spec("acme", "clicks")], drift: [] }, ["acme"], ["short_link_metrics"]),
    ).toThrow('--accept-shrink: no stream "clicks"; known: short_link_metrics');
    expect(() =>
      checkAcceptedHolds({ shrink: [], drift: [spec("acm", "cdrs")] }, ["acme"], ["cdrs"]),
    ).toThrow('--accept-drift: no account "acm"; configured: acme');
    expect(() =>
      checkAcceptedHolds({ shrink: [spec("acme", "cdrs")], drift: [] }, ["acme"], ["cdrs"]),
    ).not.toThrow();
  });
});
