/**
 * How a run shows its progress: on a terminal, one bar per (account, stream) with windows done of
 * planned, rows, requests/s and ETA; elsewhere (cron, CI, k8s) one JSON log line per finished
 * window. The run itself only calls this interface.
 */
import cliProgress from "cli-progress";
import type { Logger } from "../../core/log.js";
import type { Clock } from "../../core/ports.js";
import { processStderr, type StderrLines } from "../../core/stderr-lines.js";

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
 * A cli-progress MultiBar on stderr, one bar per (account, stream). While it is drawn, every stderr
 * line (log records, notices) is printed above the bars, whole; `end` prints what is still waiting,
 * draws the bars a last time and gives stderr back, so whatever comes next (the summary) follows.
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
      format: `{name} |{bar}| {value}/{total} ${counting} | {rows} rows | {failed} failed | {rps} req/s | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 20,
      stream,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<
    string,
    { bar: cliProgress.SingleBar; rows: number; failed: number; pages: number; started: number }
  >();
  const payload = (state: { rows: number; failed: number; pages: number; started: number }) => {
    const seconds = Math.max(0.001, (clock.now() - state.started) / 1000);
    return { rows: state.rows, failed: state.failed, rps: (state.pages / seconds).toFixed(1) };
  };
  let release: (() => void) | undefined;
  return {
    begin(list) {
      const width = Math.max(...list.map((s) => `${s.account}/${s.stream}`.length), 1);
      for (const s of list) {
        const state = { rows: 0, failed: 0, pages: 0, started: clock.now() };
        const name = `${s.account}/${s.stream}`.padEnd(width);
        const bar = multibar.create(s.windows, 0, { name, ...payload(state) });
        bars.set(s.id, { bar, ...state });
      }
      // Only while bars are drawn (none for an empty plan): lines wait for the next redraw there.
      if (multibar.isActive) release = lines.routeAbove((text) => multibar.log(text));
    },
    replan(id, windows) {
      bars.get(id)?.bar.setTotal(windows);
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
      state.bar.increment(1, payload(state));
    },
    end() {
      // stop() draws the bars but drops lines still waiting for the next redraw: print them first.
      if (multibar.isActive) multibar.update();
      multibar.stop();
      release?.();
    },
  };
}
