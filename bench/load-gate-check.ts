/**
 * The load gate's pure half: its thresholds (a JSON file committed in the repo), the request floor
 * of a backfill derived from the platform's truth, and the comparison that passes or fails the gate.
 */
import { z } from "zod";

/** The thresholds file (`bench/load-gate-thresholds.json`): the limits, and a note on how they were chosen. */
export const gateThresholdsSchema = z.object({
  /** The end-to-end backfill's rows/s divided by a plain COPY's of the same rows may not fall below this. */
  min_e2e_to_copy_ratio: z.number().positive(),
  /** The backfill's requests divided by the fewest its list pages need may not rise above this. */
  max_requests_per_row_over_floor: z.number().min(1),
  how_chosen: z.string().optional(),
});

/** The limits the gate holds a run to. */
export type GateThresholds = z.infer<typeof gateThresholdsSchema>;

/** Reads a thresholds file's text (`source` names it in the error when it is not valid). */
export function parseGateThresholds(text: string, source: string): GateThresholds {
  const parsed = gateThresholdsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Rows of one list window of the platform, in one direction (one request sequence of the loader). */
export interface WindowRows {
  readonly window: string;
  readonly direction: string;
  readonly rows: number;
}

/**
 * The fewest requests a loader can read `windows` with: per window and direction, its pages of
 * `maxPerPage` rows, and at least one request for an empty one (an empty list is still asked).
 */
export function requestFloor(windows: readonly WindowRows[], maxPerPage: number): number {
  return windows.reduce((sum, w) => sum + Math.max(1, Math.ceil(w.rows / maxPerPage)), 0);
}

/** What one gate run measured, reduced to the figures the thresholds speak of. */
export interface GateFigures {
  /** Median over rounds of (end-to-end rows/s ÷ the same round's plain COPY rows/s). */
  readonly e2eToCopyRatio: number;
  /** Median over rounds of (requests the platform answered ÷ {@link requestFloor}). */
  readonly requestsOverFloor: number;
  /** Rows the platform's truth holds for the range. */
  readonly truthRows: number;
  /** Rows the warehouse held after each round's backfill (every round must hold the truth's count). */
  readonly loadedRows: readonly number[];
}

/**
 * One line per figure beyond its threshold (empty: the gate passes), each naming the figure, its
 * value and the threshold. A backfill that loaded other than the truth's rows fails too: a fast
 * loader that drops rows is no pass.
 */
export function gateFailures(figures: GateFigures, thresholds: GateThresholds): string[] {
  const failures: string[] = [];
  if (!(figures.e2eToCopyRatio >= thresholds.min_e2e_to_copy_ratio)) {
    failures.push(
      `e2e/COPY ratio ${figures.e2eToCopyRatio.toFixed(3)} is below min_e2e_to_copy_ratio ${thresholds.min_e2e_to_copy_ratio}`,
    );
  }
  if (!(figures.requestsOverFloor <= thresholds.max_requests_per_row_over_floor)) {
    failures.push(
      `requests per row over the floor ${figures.requestsOverFloor.toFixed(3)} is above max_requests_per_row_over_floor ${thresholds.max_requests_per_row_over_floor}`,
    );
  }
  const wrong = figures.loadedRows.filter((rows) => rows !== figures.truthRows);
  if (wrong.length > 0) {
    failures.push(
      `rows loaded ${figures.loadedRows.join(", ")} differ from the truth's ${figures.truthRows} in ${wrong.length} round(s)`,
    );
  }
  return failures;
}
