/**
 * The test oracle for concurrency and talk time, computed from the sandbox truth's legs in the
 * tests' own code (never through the marts): shared by marts-local-time-truth and
 * semantic-layer-truth, which check the account and per-trunk peaks against it.
 */

const DAY_MS = 86_400_000;

const utcDayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A leg's talk interval [start, end), epoch ms. */
export interface TalkInterval {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * Per UTC day: the most legs in progress at one instant ([start, end): an end sorts before a start
 * at the same instant; a leg without talk time occupies nothing), legs carried in over midnight
 * included, and the day's talk seconds.
 */
export function sweepByDay(
  legs: readonly TalkInterval[],
): Map<string, { peak: number; talkSeconds: number }> {
  const talking = legs.filter((l) => l.endMs > l.startMs);
  const events = talking.flatMap((l): [number, number][] => [
    [l.startMs, 1],
    [l.endMs, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = new Map<string, { peak: number; talkSeconds: number }>();
  const dayOf = (day: string) => {
    let row = out.get(day);
    if (row === undefined) {
      const dayStart = Date.parse(`${day}T00:00:00Z`);
      const carried = talking.filter((l) => l.startMs < dayStart && l.endMs > dayStart).length;
      row = { peak: carried, talkSeconds: 0 };
      out.set(day, row);
    }
    return row;
  };
  for (const l of talking) {
    for (let d = Math.floor(l.startMs / DAY_MS) * DAY_MS; d < l.endMs; d += DAY_MS) {
      dayOf(utcDayOf(d)).talkSeconds += (Math.min(l.endMs, d + DAY_MS) - Math.max(l.startMs, d)) / 1000;
    }
  }
  let level = 0;
  for (const [at, delta] of events) {
    level += delta;
    if (delta === 1) {
      const row = dayOf(utcDayOf(at));
      row.peak = Math.max(row.peak, level);
    }
  }
  return out;
}
