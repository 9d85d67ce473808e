/**
 * One progress bar's line, fitted to the terminal's width without cutting anything: the bar
 * narrows first, then whole fields are left out (requests/s, failed, rows, ETA, in that order),
 * then the bar itself; a field is shown whole or not at all (a cut `ETA 0s` read `Es`).
 */

/** What one bar shows. */
export interface BarLineFields {
  readonly name: string;
  /** `31/42 windows`. */
  readonly count: string;
  readonly rows: string;
  readonly failed: string;
  readonly rps: string;
  readonly eta: string;
  /** Done share, 0..1. */
  readonly progress: number;
}

/** The narrowest bar drawn; below it the bar is left out. */
const MIN_BAR = 8;
/** Fields left out first when the line does not fit, most expendable first. */
const DROP_ORDER = ["rps", "failed", "rows", "eta"] as const;

/** The line of `fields` in at most `width` columns (see the module comment). */
export function barLine(fields: BarLineFields, width: number): string {
  const shown = new Set<string>(DROP_ORDER);
  const texts = (): string[] => [
    fields.count,
    ...(shown.has("rows") ? [`${fields.rows} rows`] : []),
    ...(shown.has("failed") ? [`${fields.failed} failed`] : []),
    ...(shown.has("rps") ? [`${fields.rps} req/s`] : []),
    ...(shown.has("eta") ? [`ETA ${fields.eta}`] : []),
  ];
  for (let drop = 0; drop <= DROP_ORDER.length; drop++) {
    const tail = texts().join(" | ");
    const room = width - fields.name.length - tail.length - 4; // " |" + "| "
    if (room >= MIN_BAR) return `${fields.name} |${bar(fields.progress, Math.min(room, 40))}| ${tail}`;
    const next = DROP_ORDER[drop];
    if (next !== undefined) shown.delete(next);
  }
  // No room for a bar: the name and the count, then the ETA when it fits.
  const short = `${fields.name} ${fields.count}`;
  const withEta = `${short} | ETA ${fields.eta}`;
  return withEta.length <= width ? withEta : short;
}

function bar(progress: number, size: number): string {
  const done = Math.round(Math.min(1, Math.max(0, progress)) * size);
  return "\u2588".repeat(done) + "\u2591".repeat(size - done);
}

/** A group of bars: the display's rows decide how streams are grouped (see {@link barGroups}). */
export interface BarGroup {
  readonly id: string;
  readonly name: string;
  /** The ids of the streams it sums. */
  readonly members: readonly string[];
}

/**
 * The bars a terminal of `rows` rows shows for `streams` with nothing scrolled away: one per stream
 * when they fit (a line kept for the log above), else one per account, else one for everything.
 */
export function barGroups(
  streams: readonly { readonly id: string; readonly account: string; readonly stream: string }[],
  rows: number,
): BarGroup[] {
  const room = Math.max(1, rows - 2);
  if (streams.length <= room)
    return streams.map((s) => ({ id: s.id, name: `${s.account}/${s.stream}`, members: [s.id] }));
  const accounts = [...new Set(streams.map((s) => s.account))];
  if (accounts.length <= room)
    return accounts.map((account) => {
      const members = streams.filter((s) => s.account === account).map((s) => s.id);
      return { id: `account:${account}`, name: `${account} (${members.length} streams)`, members };
    });
  return [
    {
      id: "all",
      name: `${accounts.length} accounts, ${streams.length} streams`,
      members: streams.map((s) => s.id),
    },
  ];
}
