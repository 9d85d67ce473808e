import type { WindowParameters } from "@telecom-etl/platform/resource.js";
import { DAY_MS } from "../sandbox-options.js";
import { optionalDate, ParamError, requireDate } from "./http-kit.js";

/**
 * The days a windowed list request asks for, read under the resource's own parameter names
 * (`CATALOGUE.<name>.window`): `fromMs` is the first day's 00:00 UTC, `untilMs` the end of the
 * window (exclusive), whether `to` names the last day (`last_day`) or the day after (`day_after`).
 */
export interface AskedWindow<Day extends number | null = number | null> {
  readonly fromMs: Day;
  readonly untilMs: Day;
}

function untilOf(toMs: number, parameters: WindowParameters): number {
  return parameters.toBound === "last_day" ? toMs + DAY_MS : toMs;
}

/** Both window parameters, required: 400 when one is missing or malformed. */
export function requiredWindow(query: URLSearchParams, parameters: WindowParameters): AskedWindow<number> {
  const fromMs = requireDate(query, parameters.from);
  const toMs = requireDate(query, parameters.to);
  return { fromMs, untilMs: untilOf(toMs, parameters) };
}

/** The window parameters, each optional (null when absent): 422 when one is malformed. */
export function optionalWindow(query: URLSearchParams, parameters: WindowParameters): AskedWindow {
  const fromMs = optionalDate(query, parameters.from);
  const toMs = optionalDate(query, parameters.to);
  return { fromMs, untilMs: toMs === null ? null : untilOf(toMs, parameters) };
}

/** 422 naming the `to` parameter when the window holds no day (its end is not after its start). */
export function rejectReversed(window: AskedWindow, parameters: WindowParameters): void {
  if (window.fromMs !== null && window.untilMs !== null && window.untilMs <= window.fromMs)
    throw new ParamError(422, parameters.to);
}
