import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { answered } from "../helpers/catalogue-schemas.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * Time in the sandbox, observed through the platform API: late CDRs join a window when the clock
 * passes their `visible_at`, also between two pages of one read, and with `now: "real"` the clock
 * is the wall clock, so rows appear without anyone moving it.
 */

interface Page {
  readonly rows: string[];
  readonly total: number;
  readonly totalPages: number;
}

async function page(sandbox: RunningSandbox, window: string, n: number, perPage = 100): Promise<Page> {
  const res = await fetch(`${sandbox.url}/v1/cdr?${window}&per_page=${perPage}&page=${n}`, {
    headers: { authorization: `Bearer ${sandbox.world.accounts[0]!.apiKey}` },
  });
  const parsed = answered(CATALOGUE.cdrs).parse(await res.json());
  return {
    rows: parsed.items.map((item) => JSON.stringify(cdrSchema.parse(item))),
    total: parsed.pagination.total,
    totalPages: parsed.pagination.total_pages,
  };
}

/** Every row of a window (both directions), as served. */
async function readWindow(sandbox: RunningSandbox, day: string): Promise<string[]> {
  const rows: string[] = [];
  for (const type of ["placed", "received"]) {
    for (let n = 1; ; n++) {
      const p = await page(sandbox, `from=${day}&to=${day}&type=${type}`, n);
      rows.push(...p.rows);
      if (n >= p.totalPages) break;
    }
  }
  return rows;
}

interface LateLine {
  readonly row: string;
  readonly direction: string;
  readonly visibleAt: number;
  readonly visible: boolean;
}

/** `GET /_sandbox/truth/cdrs/late` with the CDR as served (extra fields stripped, key order kept). */
async function lateRows(sandbox: RunningSandbox, day: string): Promise<LateLine[]> {
  const text = await (
    await fetch(`${sandbox.url}/_sandbox/truth/cdrs/late?account=master&from=${day}&to=${day}`)
  ).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const { direction, visible_at, visible, ...cdr } = JSON.parse(l) as Record<string, unknown>;
      return {
        row: JSON.stringify(cdr),
        direction: String(direction),
        visibleAt: Date.parse(String(visible_at)),
        visible: visible === true,
      };
    });
}

async function setClock(
  sandbox: RunningSandbox,
  body: Record<string, string>,
): Promise<{ now: string; real: boolean }> {
  const res = await fetch(`${sandbox.url}/_sandbox/clock`, { method: "POST", body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as { now: string; real: boolean };
}

describe("sandbox late arrival over the platform API", () => {
  it("a window read before and after advancing the clock differs by exactly the late rows not yet visible", async ({
    launchSandbox,
  }) => {
    // At 03:00 the next day every on-time CDR of 2026-08-02 is visible (calls last at most 2 h).
    const sandbox = await launchSandbox({
      seed: 43,
      days: 4,
      callsPerDay: 400,
      lateShare: 0.1,
      now: "2026-08-03T03:00:00Z",
    });
    const before = await readWindow(sandbox, "2026-08-02");
    const late = await lateRows(sandbox, "2026-08-02");
    const hidden = late.filter((l) => !l.visible);
    expect(hidden.length).toBeGreaterThan(10);
    expect(late.some((l) => l.visible)).toBe(true);
    for (const line of late) expect(before.includes(line.row)).toBe(line.visible);
    expect(await setClock(sandbox, { advance: "PT48H" })).toEqual({
      now: "2026-08-05T03:00:00.000Z",
      real: false,
    });
    const after = await readWindow(sandbox, "2026-08-02");
    const previously = new Set(before);
    expect(before.every((row) => after.includes(row))).toBe(true);
    expect(after.filter((row) => !previously.has(row)).sort()).toEqual(hidden.map((l) => l.row).sort());
    expect((await lateRows(sandbox, "2026-08-02")).every((l) => l.visible)).toBe(true);
  });

  it("rows appear in a window while a client pages through it (the clock moves between two pages)", async ({
    launchSandbox,
  }) => {
    const sandbox = await launchSandbox({
      seed: 47,
      days: 4,
      callsPerDay: 400,
      lateShare: 0.3,
      now: "2026-08-03T03:00:00Z",
    });
    const window = "from=2026-08-02&to=2026-08-02&type=placed";
    const first = await page(sandbox, window, 1, 50);
    const t0 = Date.parse("2026-08-03T03:00:00Z");
    await setClock(sandbox, { advance: "PT24H" });
    const t1 = t0 + 24 * 3_600_000;
    const rest: string[] = [];
    let total = first.total;
    for (let n = 2; ; n++) {
      const p = await page(sandbox, window, n, 50);
      total = p.total;
      rest.push(...p.rows);
      if (n >= p.totalPages) break;
    }
    const arrived = (await lateRows(sandbox, "2026-08-02")).filter(
      (l) => l.direction === "placed" && l.visibleAt > t0 && l.visibleAt <= t1,
    );
    expect(arrived.length).toBeGreaterThan(0);
    // The pagination object tells the current total: it grew by the rows that arrived meanwhile.
    expect(total).toBe(first.total + arrived.length);
    // Rows that arrived sort into the pages already read: the next pages shift, so the client
    // sees old rows twice and misses exactly the arrived rows that landed on page 1.
    const current: string[] = [];
    for (let n = 1; ; n++) {
      const p = await page(sandbox, window, n, 50);
      current.push(...p.rows);
      if (n >= p.totalPages) break;
    }
    const arrivedRows = new Set(arrived.map((l) => l.row));
    const landedOnPageOne = current.slice(0, 50).filter((row) => arrivedRows.has(row));
    expect(landedOnPageOne.length).toBeGreaterThan(0);
    const seen = [...first.rows, ...rest];
    expect(seen.length - new Set(seen).size).toBe(landedOnPageOne.length);
    expect(current.filter((row) => !seen.includes(row)).sort()).toEqual([...landedOnPageOne].sort());
  });

  it("with now: real the clock is the wall clock; a row appears once wall time passes its visible_at", async ({
    launchSandbox,
  }) => {
    const sandbox = await launchSandbox({ seed: 53, days: 3, callsPerDay: 300, now: "real" });
    const before = Date.now();
    const clock = (await (await fetch(`${sandbox.url}/_sandbox/clock`)).json()) as {
      now: string;
      real: boolean;
    };
    const after = Date.now();
    expect(clock.real).toBe(true);
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(clock.now)).toBeLessThanOrEqual(after);
    // The world ends today: its last day is the current UTC day.
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    expect(sandbox.world.start).toBe(new Date(today - 2 * 86_400_000).toISOString().slice(0, 10));
    // Put the (still real) clock 3 s before a late row's visible_at; wall time does the rest.
    const day = new Date(today - 86_400_000).toISOString().slice(0, 10);
    const late = await lateRows(sandbox, day);
    expect(late.length).toBeGreaterThan(0);
    const target = late[0]!;
    const { row, visibleAt } = target;
    const moved = await setClock(sandbox, { now: new Date(visibleAt - 3000).toISOString() });
    expect(moved.real).toBe(true);
    const window = `from=${day}&to=${day}&type=${target.direction}`;
    const readAll = async () => {
      const rows: string[] = [];
      for (let n = 1; ; n++) {
        const p = await page(sandbox, window, n);
        rows.push(...p.rows);
        if (n >= p.totalPages) return rows;
      }
    };
    const first = await readAll();
    const clockAfterRead = Date.parse(
      ((await (await fetch(`${sandbox.url}/_sandbox/clock`)).json()) as { now: string }).now,
    );
    if (clockAfterRead < visibleAt) expect(first).not.toContain(row);
    // Nothing moves the clock: only wall time passing visible_at (about 3 s from here) shows the row.
    await expect
      .poll(async () => first.includes(row) || (await readAll()).includes(row), {
        interval: 100,
        timeout: 10_000,
      })
      .toBe(true);
  });
});
