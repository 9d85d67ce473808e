/**
 * What a run reads of one stream of one account: the windows of a windowed stream (every window not
 * yet settled, or a backfill's range), one full read of a full-refresh stream, and, planned after
 * the account's other streams loaded, the id batches of a lookup stream.
 */
import { sourcesOf } from "../../config/config.js";
import type { DateWindow } from "../../core/slices.js";
import { maxDay } from "../../core/utc-days.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import { retentionHorizon } from "../../warehouse/admin/partition-retention.js";
import { expireStaleLookups, lookupCandidates, trackIds } from "../../warehouse/state/lookup-candidates.js";
import {
  isCovered,
  mergeWindows,
  type PlannedWindow,
  planBackfillWindows,
  planWindows,
  resolveStartDate,
} from "../plan/plan-windows.js";
import { readStreamProgress, type StreamProgress } from "../plan/read-progress.js";
import type { PipelineDeps, RunRequest } from "./run-request.js";
import type { PlannedSlice, StreamJob } from "./run-stream.js";

/** Ids asked about per lookup slice (one transaction each). */
export const LOOKUP_BATCH = 100;

/**
 * The slices of a lookup stream for one account: ids its config asks to track start pending, ids
 * pending for too long expire, then the candidates (new ids and pending ones) in batches.
 */
export async function planLookupSlices(
  deps: PipelineDeps,
  job: StreamJob,
  runStartedAt: number,
): Promise<PlannedSlice[]> {
  const lookup = job.stream.lookup!;
  const db = deps.warehouse.db;
  const account = job.account.name;
  const configured = lookup.configured?.(sourcesOf(job.account)) ?? [];
  await trackIds(db, {
    kind: lookup.trackedKind,
    account,
    ids: configured,
    source: "config",
    at: new Date(runStartedAt),
  });
  const query = {
    kind: lookup.candidates,
    trackedKind: lookup.trackedKind,
    account,
    now: runStartedAt,
    maxAgeDays: deps.config.transcriptionMaxAgeDays,
  };
  const expired = await expireStaleLookups(db, query);
  if (expired > 0)
    deps.log.info(
      { account, stream: job.stream.name, expired },
      "pending lookups expired (too old to wait for)",
    );
  const items = await lookupCandidates(db, query);
  const plan: PlannedSlice[] = [];
  for (let i = 0; i < items.length; i += LOOKUP_BATCH) {
    plan.push({ slice: { kind: "ids", items: items.slice(i, i + LOOKUP_BATCH) }, complete: false });
  }
  return plan;
}

/**
 * The slices of one stream of one account: its windows (a run's unsettled ones, or a backfill's
 * range without the windows settled before unless it refetches), one full read, or none yet for a
 * lookup. `onSettledSkipped` hears how many of a backfill's windows were left out as settled.
 */
export async function planSlices(
  deps: PipelineDeps,
  request: RunRequest,
  account: string,
  stream: StreamDefinition,
  when: { readonly today: string; readonly readAt: number; readonly settleHours: number },
  onSettledSkipped: (windows: number) => void = () => {},
): Promise<PlannedSlice[]> {
  // A re-count reads no slice: the windows it re-opens wait for the next run.
  if (request.command === "recount") return [];
  if (stream.slicing === "full_refresh") return [{ slice: { kind: "full" }, complete: false }];
  // A lookup's ids come from what the account's other streams load first: planned after them.
  if (stream.slicing === "lookup") return [];
  const { windowDays, lookbackDays } = deps.config;
  const progress = await readStreamProgress(deps.warehouse.db, account, stream.name);
  let windows: PlannedWindow[];
  if (request.command === "backfill") {
    const range = { from: request.from, to: request.to, windowDays, ...when };
    windows = planBackfillWindows({ ...range, completed: request.refetch ? [] : progress.completed });
    if (!request.refetch) onSettledSkipped(planBackfillWindows(range).length - windows.length);
  } else {
    // Retention's horizon moves the start: a retired month's windows (their states forgotten with
    // it) are never planned again, or every run would read them again for retention to retire.
    const horizon = retentionHorizon(deps.config.retention, stream.table, when.today);
    const resolved = resolveStartDate(deps.config.startDate, progress.firstRunWindow, when.today);
    const startDate = horizon === undefined ? resolved : maxDay(resolved, horizon);
    windows = planWindows({
      startDate,
      windowDays,
      lookbackDays,
      ...when,
      until: request.until,
      completed: progress.completed,
    });
  }
  return windows.map((w) => plannedWindow(stream, w, progress));
}

/**
 * A planned window with what its state says of it: settled before (covered by completed windows,
 * or re-opened after settling), re-opened, and whether it waits for the account's other windows
 * (a re-opened merge window the platform counts fewer rows in).
 */
function plannedWindow(stream: StreamDefinition, w: PlannedWindow, progress: StreamProgress): PlannedSlice {
  const overlaps = (other: DateWindow) => other.start < w.end && w.start < other.end;
  const reopened = progress.reopened.filter(overlaps);
  const settled = reopened.length > 0 || isCovered(w, mergeWindows(progress.completed));
  const deferred = stream.table.writeMode === "merge" && reopened.some((r) => r.fewerOnPlatform);
  return {
    slice: { kind: "window", window: { start: w.start, end: w.end } },
    complete: w.complete,
    ...(settled ? { settled } : {}),
    ...(reopened.length > 0 ? { reopened: true } : {}),
    ...(deferred ? { deferred } : {}),
  };
}
