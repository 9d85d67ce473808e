import type { RowSource } from "./routes/page-body.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxAccount } from "./world.js";

/**
 * What a list is asked for: one account's rows in the window `[fromMs, untilMs)` (whole UTC days;
 * null: open on that side) that exist at `nowMs`, with the request's query for the list's own
 * filters (null when the truth export asks: no filter, every row).
 */
export interface ListAsk {
  readonly runtime: SandboxRuntime;
  readonly account: SandboxAccount;
  readonly fromMs: number | null;
  readonly untilMs: number | null;
  readonly nowMs: number;
  readonly query: URLSearchParams | null;
}

/**
 * How the sandbox serves one of the catalogue's lists (the key it is registered under in
 * `SANDBOX_LISTS` is the catalogue's resource name). Its path, envelope, window parameter names and
 * item schema come from the catalogue; the list only says which rows it holds. From this one
 * declaration come the list's route (when `route` is `generic`), its truth export and its rows'
 * fault identities.
 */
export interface SandboxList {
  /**
   * `generic`: served by the windowed-list route (catalogue window, paging, envelope, row faults, a
   * sub-account's list under `/v1/sub-organizations/{id}/…`); `own`: a route file of its own serves
   * it (filters and answers the generic route does not know: the CDRs' directions, recordings'
   * `invalid`).
   */
  readonly route: "generic" | "own";
  /** `required`: a request without both window parameters is a 400 (short links); else each is optional. */
  readonly window: "required" | "optional";
  /** Whether the truth export lists it under its own name (false: another stream's truth holds its rows). */
  readonly truth: boolean;
  /**
   * The rows the list holds for an ask, in serving order; each carries its fault identity (UTC day
   * and index within it). A list reads the query's filters it knows (a malformed one is a
   * `ParamError`).
   */
  select(ask: ListAsk): RowSource;
  /** The other truth streams its lines name (a scaffolded list's; the others are in truth-references.ts). */
  readonly references?: readonly ListReference[];
}

/**
 * A reference from a list's truth lines to another truth stream's (`parent`, a truth stream name),
 * as truth-references.ts declares them: what the sandbox's truth consistency test checks.
 */
export interface ListReference {
  readonly parent: string;
  /** `list`: the loader reads the child from its own list, so its parent may be a rejected row. */
  readonly through: "parent" | "list";
  /** The parent key a child line names, or null when it names none. */
  childKey(line: Readonly<Record<string, unknown>>): string | null;
  /** The key of a parent line, or null. */
  parentKey(line: Readonly<Record<string, unknown>>): string | null;
}

/** A list's declaration, checked against {@link SandboxList} (the `satisfies` of one entry). */
export function defineSandboxList(list: SandboxList): SandboxList {
  return list;
}

/** The UTC days (day numbers) an ask lists: the window's days within the world's, up to the day of `nowMs`. */
export function askedDays({ runtime, fromMs, untilMs, nowMs }: ListAsk): number[] {
  const { world } = runtime;
  const days: number[] = [];
  const endDay = Math.min(untilMs ?? world.endMs, world.endMs) / DAY_MS;
  for (let day = Math.max(fromMs ?? world.startMs, world.startMs) / DAY_MS; day < endDay; day++) {
    if (day * DAY_MS > nowMs) break;
    days.push(day);
  }
  return days;
}
