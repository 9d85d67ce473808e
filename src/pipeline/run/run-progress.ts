/**
 * How a run shows its progress: on a terminal, one bar per (account, stream) with windows done of
 * planned, rows, requests/s and ETA; elsewhere (cron, CI, k8s) one JSON log line per finished
 * window. The run itself only calls this interface.
 */
import cliProgress from "cli-progress";
import type { Logger } from "../../core/log.js";
import type { Clock } from "../../core/ports.js";
import { processStderr, type StderrLines } from "../../core/stderr-lines.js";
import { type BarLineFields, barGroups, barLine } from "./bar-line.js";

/** One (account, stream) the run works on. */
export interface ProgressStream {
  readonly id: string;
  readonly account: string;
  readonly stream: string;
  readonly windows: number;
}

/** What a finished window reports. */
export interface WindowProgress {
  readonly window: string;
  readonly status: "succeeded" | "failed" | "skipped";
  readonly rows: number;
  readonly rejected: number;
  readonly requests: number;
  readonly completed: boolean;
  readonly error?: string;
}

/** Receives the run's progress events. */
export interface ProgressReporter {
  begin(streams: readonly ProgressStream[]): void;
  /** A stream's windows are known only now (lookups are planned after the account's other streams). */
  replan(id: string, windows: number): void;
  /** A page request was answered (or failed for good). */
  page(id: string): void;
  windowDone(id: string, progress: WindowProgress): void;
  end(): void;
}

/** JSON log lines: one per finished window, failures at warn level. */
export function logProgress(log: Logger): ProgressReporter {
  const streams = new Map<string, ProgressStream>();
  return {
    begin(list) {
      for (const s of list) streams.set(s.id, s);
    },
    replan() {},
    page() {},
    windowDone(id, progress) {
      const s = streams.get(id);
      const fields = { account: s?.account, stream: s?.stream, ...progress };
      if (progress.status === "succeeded") log.info(fields, "window loaded");
      else log.warn(fields, progress.status === "failed" ? "window failed" : "window skipped");
    },
    end() {},
  };
}

/**
 * A cli-progress MultiBar on stderr, one bar per (account, stream); on a terminal with fewer rows
 * than that, one per account, or one for the whole run (see barGroups), so no bar scrolls away
 * and leaves stale copies behind. Each bar's line fits the terminal's width, fields whole (see
 * barLine), and line wrapping stays on: a log line longer than the screen wraps, never is cut.
 * While it is drawn, every stderr line (log records, notices) is printed above the bars, whole;
 * `end` prints what is still waiting, draws the bars a last time and gives stderr back, so
 * whatever comes next (the summary) follows.
 */
export function barProgress(
  clock: Clock,
  lines: StderrLines = processStderr,
  stream: NodeJS.WriteStream = process.stderr,
  /** What a bar counts: `windows` (a run's), `units` (a distributed run's work units). */
  counting = "windows",
): ProgressReporter {
  const multibar = new cliProgress.MultiBar(
    {
      format: (options, params, payload: { line: Omit<BarLineFields, "count" | "eta" | "progress"> }) =>
        barLine(
          {
            ...payload.line,
            count: `${params.value}/${params.total} ${counting}`,
            eta: cliProgress.Format.TimeFormat(params.eta, options, 5),
            progress: params.progress,
          },
          Math.max(20, (stream.columns || 80) - 1),
        ),
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      // Wrapping stays on (cli-progress turns it off by default, which cuts the log lines above the bars).
      linewrap: true,
      etaBuffer: 20,
      stream,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, BarState>();
  let release: (() => void) | undefined;
  return {
    begin(list) {
      const groups = barGroups(list, stream.rows || 24);
      const width = Math.max(...groups.map((g) => g.name.length), 1);
      for (const group of groups) {
        const windows = new Map(group.members.map((id) => [id, list.find((s) => s.id === id)?.windows ?? 0]));
        const state: BarState = {
          name: group.name.padEnd(width),
          windows,
          rows: 0,
          failed: 0,
          pages: 0,
          started: clock.now(),
        };
        state.bar = multibar.create(sum(windows), 0, barPayload(clock, state));
        for (const id of group.members) bars.set(id, state);
      }
      // Only while bars are drawn (none for an empty plan): lines wait for the next redraw there.
      if (multibar.isActive) release = lines.routeAbove((text) => multibar.log(text));
    },
    replan(id, windows) {
      const state = bars.get(id);
      if (!state) return;
      state.windows.set(id, windows);
      state.bar?.setTotal(sum(state.windows));
    },
    page(id) {
      const state = bars.get(id);
      if (state) state.pages++;
    },
    windowDone(id, progress) {
      const state = bars.get(id);
      if (!state) return;
      state.rows += progress.rows;
      if (progress.status !== "succeeded") state.failed++;
      state.bar?.increment(1, barPayload(clock, state));
    },
    end() {
      // stop() draws the bars but drops lines still waiting for the next redraw: print them first.
      if (multibar.isActive) multibar.update();
      multibar.stop();
      release?.();
    },
  };
}

/** One drawn bar: the streams it sums (windows planned of each) and its figures so far. */
interface BarState {
  readonly name: string;
  readonly windows: Map<string, number>;
  rows: number;
  failed: number;
  pages: number;
  readonly started: number;
  bar?: cliProgress.SingleBar;
}

/** What a bar's line shows besides its count, ETA and progress. */
function barPayload(
  clock: Clock,
  state: BarState,
): { line: Omit<BarLineFields, "count" | "eta" | "progress"> } {
  const seconds = Math.max(0.001, (clock.now() - state.started) / 1000);
  return {
    line: {
      name: state.name,
      rows: String(state.rows),
      failed: String(state.failed),
      rps: (state.pages / seconds).toFixed(1),
    },
  };
}

function sum(values: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const v of values.values()) n += v;
  return n;
}
