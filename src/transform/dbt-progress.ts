/**
 * How a dbt step shows its progress: on a terminal, one bar (nodes done of dbt's total, the last
 * node); elsewhere one log line per finished node, "N of M", as dbt itself prints them.
 */
import cliProgress from "cli-progress";
import type { Logger } from "../core/log.js";
import { processStderr, type StderrLines } from "../core/stderr-lines.js";
import type { DbtNodeProgress } from "./dbt-events.js";

/** Receives a dbt step's finished nodes; `end` once dbt has exited. */
export interface DbtProgress {
  node(progress: DbtNodeProgress): void;
  end(): void;
}

/** Text of one finished node: `dbt build 12 of 111: model fct_calls success`. */
export function describeNodeProgress(step: string, p: DbtNodeProgress): string {
  return `${step} ${p.index} of ${p.total}: ${p.resourceType} ${p.name} ${p.status}`;
}

/** One info line per finished node (warn when it did not pass). */
export function logDbtProgress(step: string, log: Logger): DbtProgress {
  return {
    node(p) {
      const passed = ["success", "pass", "skipped", "no-op"].includes(p.status);
      log[passed ? "info" : "warn"]({ step, ...p }, describeNodeProgress(step, p));
    },
    end() {},
  };
}

/**
 * A bar on stderr, sized by dbt's own total once its first node finishes; stderr lines are printed
 * above it meanwhile, and `end` draws it a last time and gives stderr back.
 */
export function barDbtProgress(
  step: string,
  lines: StderrLines = processStderr,
  stream: NodeJS.WriteStream = process.stderr,
): DbtProgress {
  const multibar = new cliProgress.MultiBar(
    {
      format: "{step} |{bar}| {value} of {total} nodes | {last}",
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      stream,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | undefined;
  let release: (() => void) | undefined;
  // dbt's index is a node's place in start order; with several threads nodes finish out of it.
  let done = 0;
  return {
    node(p) {
      done += 1;
      const payload = { step, last: `${p.resourceType} ${p.name} ${p.status}` };
      if (bar === undefined) {
        bar = multibar.create(p.total, done, payload);
        if (multibar.isActive) release = lines.routeAbove((text) => multibar.log(text));
      } else {
        bar.setTotal(p.total);
        bar.update(done, payload);
      }
    },
    end() {
      if (multibar.isActive) multibar.update();
      multibar.stop();
      release?.();
    },
  };
}
