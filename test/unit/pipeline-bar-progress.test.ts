import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { StderrLines } from "../../src/core/stderr-lines.js";
import { barGroups, barLine } from "../../src/pipeline/run/bar-line.js";
import { barProgress } from "../../src/pipeline/run/run-progress.js";
import { replayTerminal } from "../helpers/terminal-screen.js";

/** A terminal of `columns` × `rows` that keeps everything written to it. */
function fakeTerminal(columns: number, rows: number): { stream: NodeJS.WriteStream; output: () => string } {
  let output = "";
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      output += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: true, columns, rows });
  return { stream, output: () => output };
}

/** Issue 36 item 6: the demo's 42 bars on an 80×24 terminal. */
const STREAMS = ["master", "sub-1", "sub-2"].flatMap((account) =>
  Array.from({ length: 14 }, (_, i) => ({
    id: `${account}/stream_${i}`,
    account,
    stream: `a_long_stream_name_${i}`,
    windows: 31,
  })),
);

describe("progress bars on a small terminal", () => {
  it("more bars than rows: one per account, each line within the width, fields whole; a long log line wraps", () => {
    const terminal = fakeTerminal(80, 24);
    const lines = new StderrLines(() => {});
    const progress = barProgress({ now: () => Date.now() }, lines, terminal.stream);
    progress.begin(STREAMS);
    const log = `WARN: ${"a message longer than the screen, with the fix at its end; ".repeat(3)}FIX-TEXT`;
    lines.write(`${log}\n`);
    for (const s of STREAMS.slice(0, 20))
      progress.windowDone(s.id, {
        window: "2026-08-01..2026-08-02",
        status: "succeeded",
        rows: 100,
        rejected: 0,
        requests: 2,
        completed: true,
      });
    progress.end();
    // Line wrapping is never turned off (it cut the log lines above the bars).
    expect(terminal.output()).not.toContain("\x1b[?7l");
    const screen = replayTerminal(terminal.output(), 80).filter((l) => l.trim() !== "");
    const bars = screen.filter((l) => / windows/.test(l));
    expect(bars).toHaveLength(3);
    for (const bar of bars) {
      expect(bar.length).toBeLessThan(80);
      expect(bar).toMatch(
        /^(master|sub-1|sub-2) \(14 streams\) +\|[\u2588\u2591]+\| \d+\/434 windows( \| .+)?$/,
      );
      expect(bar).not.toMatch(/ETA\s*$/);
    }
    expect(bars[0]).toContain("| 14/434 windows");
    // The log line is on the screen whole, over as many lines as it takes.
    expect(screen.join("")).toContain(log);
  });

  it("barLine narrows the bar, then leaves whole fields out; never cuts one", () => {
    const fields = {
      name: "master/short_link_metrics",
      count: "31/31 windows",
      rows: "59178",
      failed: "0",
      rps: "10.0",
      eta: "0s",
      progress: 1,
    };
    const wide = barLine(fields, 200);
    expect(wide).toMatch(/\| 31\/31 windows \| 59178 rows \| 0 failed \| 10\.0 req\/s \| ETA 0s$/);
    for (const width of [79, 60, 50, 40]) {
      const line = barLine(fields, width);
      expect(line.length, line).toBeLessThanOrEqual(width);
      expect(line).toContain("31/31 windows");
      expect(line).not.toMatch(/ETA ?$|E$|Es$/);
    }
    expect(barLine(fields, 79)).toContain("ETA 0s");
  });

  it("barGroups: streams when they fit, accounts when they do, else one for all", () => {
    expect(barGroups(STREAMS, 50)).toHaveLength(42);
    expect(barGroups(STREAMS, 24).map((g) => g.name)).toEqual([
      "master (14 streams)",
      "sub-1 (14 streams)",
      "sub-2 (14 streams)",
    ]);
    expect(barGroups(STREAMS, 3).map((g) => g.name)).toEqual(["3 accounts, 42 streams"]);
  });
});
