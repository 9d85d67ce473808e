import type { Recording } from "@telecom-etl/platform/recording.js";
import type { CdrCall } from "./generate-cdr-day.js";
import type { PageRow } from "./routes/page-body.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { formatCdrDate } from "./serialize-cdr.js";
import type { SandboxAccount } from "./world.js";

/**
 * The sandbox's call recordings. A call has at most one recording (answered, with recording on
 * its trunk for a placed call or its number for a received one), created when the call ends
 * (`created_at` = the call's end) and listed from the moment its CDR is (a late CDR's recording is
 * late too). Its `id` is the platform-wide integer the call's uuid tail encodes (unique per call:
 * the tail is a permutation of account, day and row), so it is stable across runs and revisions.
 */

/** The recording id of a call: the 48-bit tail of its uuid read as an integer. */
export function recordingIdOf(call: Pick<CdrCall, "uuid">): number {
  return Number.parseInt(call.uuid.slice(24), 16);
}

/** The recording of a call as the platform lists it, or null when the call has none. */
export function recordingOf(call: CdrCall): Recording | null {
  if (call.recordingUrl === null) return null;
  return {
    id: recordingIdOf(call),
    created_at: formatCdrDate(call.endMs),
    duration: call.duration,
    from: call.from,
    to: call.to,
    call_uuid: call.uuid,
    url: call.recordingUrl,
  };
}

/**
 * The recording of a call as a list row with its fault identity (the call's: the day holding it
 * and its index), or null when the call has none. The list and `GET /v1/recordings/{call_uuid}`
 * serve this row under the same row fault.
 */
export function recordingRowOf(call: CdrCall): PageRow | null {
  const recording = recordingOf(call);
  return recording === null
    ? null
    : { json: JSON.stringify(recording), day: call.dayNumber, index: call.index };
}

/**
 * Recordings of `account` listed at `nowMs` whose `created_at` is in `[fromMs, untilMs)`, as list
 * rows (JSON and the call's identity for seeded row faults), by `created_at` then id; `keep`
 * filters the calls (the list's `from`, `to`, `call_uuid`, `sip_trunks` parameters). A recording
 * created on day D may belong to a call started on D-1 (a call across midnight).
 */
export function selectRecordings(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  fromMs: number,
  untilMs: number,
  nowMs: number,
  keep: (call: CdrCall) => boolean = () => true,
): PageRow[] {
  const found: { readonly row: PageRow; readonly at: number; readonly id: number }[] = [];
  const firstDay = Math.floor(fromMs / DAY_MS) - 1;
  const lastDay = Math.floor((Math.min(untilMs, nowMs + 1) - 1) / DAY_MS);
  for (let day = firstDay; day <= lastDay; day++) {
    if (runtime.cdrs.isEmpty(account, day)) continue;
    for (const call of runtime.cdrs.calls(account, day)) {
      if (call.visibleAtMs > nowMs || call.endMs < fromMs || call.endMs >= untilMs || !keep(call)) continue;
      const row = recordingRowOf(call);
      if (row === null) continue;
      found.push({ row, at: call.endMs - (call.endMs % 1000), id: recordingIdOf(call) });
    }
  }
  return found.sort((a, b) => a.at - b.at || a.id - b.id).map((f) => f.row);
}
