/**
 * Which date windows a run loads, as a pure function of the configuration, the set of completed
 * windows and ONE instant captured when the run started. A window is complete only when it was
 * read at least `settleHours` after its end (late rows have arrived by then): until then every run
 * reads it again, however long since the last run. Completion is judged by coverage (a window is
 * done when completed windows cover every one of its days), so changing `window_days` or clipping
 * at `--until` never loses or double-counts state.
 */
import type { DateWindow } from "../../core/slices.js";
import { addDays, dayToMs, minDay } from "../../core/utc-days.js";

/** Days before the first run that a stream starts from when no `start_date` is configured. */
export const DEFAULT_START_DAYS_BACK = 30;

/** Why a window is in the plan. */
export const WINDOW_REASONS = ["open", "lookback", "current"] as const;
/**
 * `open`: not completed (never read, read before it settled, or failed); `lookback`: completed,
 * re-read for late rows anyway; `current`: contains today.
 */
export type WindowReason = (typeof WINDOW_REASONS)[number];

/**
 * A window to load, and whether this read may mark it complete: only when it is read at least the
 * stream's settle hours after its end (the loader checks again with the platform's own clock).
 */
export interface PlannedWindow extends DateWindow {
  readonly complete: boolean;
  readonly reason: WindowReason;
}

/** Inputs of {@link planWindows}; every date is a UTC `YYYY-MM-DD`. */
export interface WindowPlanInput {
  /** First day of the first window (the window grid starts here). */
  readonly startDate: string;
  readonly windowDays: number;
  readonly lookbackDays: number;
  /** UTC day of the run's start. */
  readonly today: string;
  /** The instant the run reads at (epoch ms; default 00:00 UTC of `today`). */
  readonly readAt?: number;
  /** Hours after a window's end before a read of it is final. */
  readonly settleHours: number;
  /** Last day to load (inclusive); windows are clipped to it. Default: today. */
  readonly until?: string | undefined;
  /** Windows already completed for this (account, stream). */
  readonly completed: readonly DateWindow[];
}

/**
 * The windows of a nightly run, oldest first: every window from `startDate` up to today (or
 * `until`) that completed windows do not cover (never read, or not settled when last read), plus
 * those overlapping the last `lookbackDays` days before today, plus today's own window (loaded,
 * never marked complete).
 */
export function planWindows(input: WindowPlanInput): PlannedWindow[] {
  assertPositiveInteger("windowDays", input.windowDays);
  const lastDay = input.until === undefined ? input.today : minDay(input.today, input.until);
  const endExclusive = addDays(lastDay, 1);
  const lookbackStart = addDays(input.today, -Math.max(0, input.lookbackDays));
  const settled = settledBy(input.readAt ?? dayToMs(input.today), input.settleHours);
  const covered = mergeWindows(input.completed);
  const plan: PlannedWindow[] = [];
  for (let start = input.startDate; start < endExclusive; start = addDays(start, input.windowDays)) {
    const end = minDay(addDays(start, input.windowDays), endExclusive);
    const window = { start, end };
    const complete = settled(end);
    if (end > input.today) plan.push({ ...window, complete: false, reason: "current" });
    else if (!isCovered(window, covered)) plan.push({ ...window, complete, reason: "open" });
    else if (end > lookbackStart) plan.push({ ...window, complete, reason: "lookback" });
  }
  return plan;
}

/**
 * Whether a window ending (exclusive) on `end` is settled when read at `readAt`: at least
 * `settleHours` have passed since its end. Today's window is never settled (its end is tomorrow).
 */
export function settledBy(readAt: number, settleHours: number): (end: string) => boolean {
  const settleMs = Math.max(0, settleHours) * 3_600_000;
  return (end) => dayToMs(end) + settleMs <= readAt;
}

/**
 * The windows of `backfill --from --to` (both inclusive): that range cut into windows of
 * `windowDays` starting at `from`, clipped at today (nothing exists later). Windows settled when
 * read now are marked complete; completion elsewhere is never touched. The windows `completed`
 * already covers (settled before: read at least settle hours after their end) are left out, so a
 * backfill run again, or resumed after an interruption, reads only what it does not have yet;
 * pass no `completed` (`--refetch`) to read the whole range again.
 */
export function planBackfillWindows(input: {
  readonly from: string;
  readonly to: string;
  readonly windowDays: number;
  readonly today: string;
  readonly readAt?: number;
  readonly settleHours: number;
  /** Windows already settled for this (account, stream): skipped. Default none (read everything). */
  readonly completed?: readonly DateWindow[];
}): PlannedWindow[] {
  assertPositiveInteger("windowDays", input.windowDays);
  if (input.from > input.to) throw new RangeError(`--from ${input.from} is after --to ${input.to}`);
  const endExclusive = addDays(minDay(input.to, input.today), 1);
  const settled = settledBy(input.readAt ?? dayToMs(input.today), input.settleHours);
  const covered = mergeWindows(input.completed ?? []);
  const plan: PlannedWindow[] = [];
  for (let start = input.from; start < endExclusive; start = addDays(start, input.windowDays)) {
    const end = minDay(addDays(start, input.windowDays), endExclusive);
    if (end > input.today) plan.push({ start, end, complete: false, reason: "current" });
    else if (!isCovered({ start, end }, covered))
      plan.push({ start, end, complete: settled(end), reason: "open" });
  }
  return plan;
}

/**
 * The first day of a stream's window grid: the configured `start_date`, else the first window
 * this (account, stream) ever touched, else {@link DEFAULT_START_DAYS_BACK} days before today.
 */
export function resolveStartDate(
  configured: string | undefined,
  firstKnownWindow: string | undefined,
  today: string,
): string {
  return configured ?? firstKnownWindow ?? addDays(today, -DEFAULT_START_DAYS_BACK);
}

/** Completed windows merged into disjoint, sorted intervals (adjacent ones joined). */
export function mergeWindows(windows: readonly DateWindow[]): DateWindow[] {
  const sorted = [...windows].filter((w) => w.start < w.end).sort((a, b) => (a.start < b.start ? -1 : 1));
  const merged: { start: string; end: string }[] = [];
  for (const window of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && window.start <= last.end) {
      if (window.end > last.end) last.end = window.end;
    } else merged.push({ start: window.start, end: window.end });
  }
  return merged;
}

/** True when every day of `window` lies in one of the merged intervals `covered`. */
export function isCovered(window: DateWindow, covered: readonly DateWindow[]): boolean {
  return covered.some((c) => c.start <= window.start && window.end <= c.end);
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1`);
}
