/**
 * What the load gate measures against, read from the sandbox's truth (never from the loader): the
 * CDRs of each day of the world as the platform serves them, ready for a plain COPY, their counts per
 * window and direction, and the platform's largest page.
 */

import { CDR_TYPES, cdrSchema } from "@telecom-etl/platform";
import { addDays } from "../src/core/utc-days.js";
import { cdrsStream } from "../src/streams/cdrs.js";
import { type LoadRow, toLoadRow } from "../src/streams/load-row.js";
import type { ForkedSandbox } from "./e2e-harness.js";
import type { WindowRows } from "./load-gate-check.js";

/** One day's CDRs as the truth lists them, mapped as the loader maps them. */
export interface TruthWindow {
  readonly day: string;
  readonly rows: readonly LoadRow[];
}

/** The truth of the gate's world. */
export interface GateTruth {
  readonly days: number;
  /** Every CDR row of the world, one entry per day (the loader's one-day windows). */
  readonly windows: readonly TruthWindow[];
  /** Rows per day and direction (the loader reads each direction of a window as its own list). */
  readonly counts: readonly WindowRows[];
  readonly rows: number;
  /** `max_per_page` of `GET /_sandbox/world`: the most rows one page can hold. */
  readonly maxPerPage: number;
}

/** GETs a sandbox admin path and returns its body. */
async function adminText(sandbox: ForkedSandbox, pathAndQuery: string): Promise<string> {
  const response = await fetch(`${sandbox.url}${pathAndQuery}`);
  if (!response.ok) throw new Error(`sandbox ${pathAndQuery}: HTTP ${response.status}`);
  return response.text();
}

/** One day's truth (`/_sandbox/truth/cdrs?from=D&to=D`, placed in the day as the list places it). */
async function readTruthDay(sandbox: ForkedSandbox, account: string, day: string): Promise<TruthWindow> {
  const text = await adminText(sandbox, `/_sandbox/truth/cdrs?account=${account}&from=${day}&to=${day}`);
  const rows: LoadRow[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    // A truth line is the row as served plus the direction the list was asked for.
    const { direction, ...served } = JSON.parse(line) as { direction: string } & Record<string, unknown>;
    rows.push(toLoadRow(cdrsStream, cdrSchema.parse(served), { direction }));
  }
  return { day, rows };
}

/** The truth of the first `days` days of the sandbox's only account. */
export async function readGateTruth(sandbox: ForkedSandbox, days: number): Promise<GateTruth> {
  const account = sandbox.accounts[0]?.name;
  if (account === undefined || sandbox.accounts.length !== 1)
    throw new Error("the gate's world has one account");
  const world = JSON.parse(await adminText(sandbox, "/_sandbox/world")) as { max_per_page: number };
  const windows: TruthWindow[] = [];
  for (let i = 0; i < days; i += 1)
    windows.push(await readTruthDay(sandbox, account, addDays(sandbox.start, i)));
  const counts = windows.flatMap((w) =>
    CDR_TYPES.map((direction) => ({
      window: w.day,
      direction,
      rows: w.rows.filter((row) => row.columns.direction === direction).length,
    })),
  );
  return {
    days,
    windows,
    counts,
    rows: windows.reduce((sum, w) => sum + w.rows.length, 0),
    maxPerPage: world.max_per_page,
  };
}
