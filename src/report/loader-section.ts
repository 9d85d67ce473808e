import { recountLines } from "../pipeline/plan/recount-windows.js";
import { chartFigure, escapeHtml, formatCount, htmlTable } from "./html.js";
import { requestsPerWindowChart, rowsPerWindowChart } from "./night-charts.js";
import { FRESHNESS_HOURS, type NightFacts, type NightStream, type NightWindow } from "./night-facts.js";

/**
 * The loader's half of the page: per account and stream, what the run did (windows, rows,
 * requests, 429s, retries, rejects) and where the stream stands (settled through, held and failed
 * windows, pending rejects, freshness); per account, rows and requests per window as charts and as
 * a table.
 */

/** Totals of a set of windows. */
export interface WindowTotals {
  readonly windows: number;
  readonly held: number;
  readonly failed: number;
  readonly rows: number;
  readonly requests: number;
  readonly retries: number;
  readonly throttled: number;
  readonly rejected: number;
}

/** Sums a set of windows. */
export function totalsOf(windows: readonly NightWindow[]): WindowTotals {
  return windows.reduce<WindowTotals>(
    (t, w) => ({
      windows: t.windows + 1,
      held: t.held + (w.status === "held" ? 1 : 0),
      failed: t.failed + (w.status === "failed" ? 1 : 0),
      rows: t.rows + w.rowsFetched,
      requests: t.requests + w.requests,
      retries: t.retries + w.retries,
      throttled: t.throttled + w.throttled,
      rejected: t.rejected + w.rowsRejected,
    }),
    { windows: 0, held: 0, failed: 0, rows: 0, requests: 0, retries: 0, throttled: 0, rejected: 0 },
  );
}

/** "3 h ago", "2 d ago": how long before `now` something happened. */
export function ageText(at: Date, now: number): string {
  const hours = (now - at.getTime()) / 3_600_000;
  if (hours < 1) return `${Math.max(0, Math.round(hours * 60))} min ago`;
  if (hours < 48) return `${Math.round(hours)} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

const FRESHNESS_TEXT = {
  ok: "fresh",
  late: `late (> ${FRESHNESS_HOURS.warn} h)`,
  stale: `stale (> ${FRESHNESS_HOURS.error} h)`,
  never: "not read yet",
} as const;

const STREAM_COLUMNS = [
  { key: "stream", label: "stream" },
  { key: "windows", label: "windows", numeric: true },
  { key: "rows", label: "rows fetched", numeric: true },
  { key: "requests", label: "requests", numeric: true },
  { key: "throttled", label: "429s", numeric: true },
  { key: "retries", label: "retries", numeric: true },
  { key: "rejected", label: "rejected", numeric: true },
  { key: "held", label: "held", numeric: true },
  { key: "failed", label: "failed", numeric: true },
  { key: "settled_through", label: "settled through" },
  { key: "rejects_pending", label: "rejects pending", numeric: true },
  { key: "freshness", label: "last read" },
] as const;

function settledText(stream: NightStream): string {
  const s = stream.status;
  if (s.completedThrough !== null) return s.completedThrough;
  return s.completedWindows === 0 ? "—" : (s.lastCompleted ?? "—");
}

function streamRow(stream: NightStream, windows: readonly NightWindow[], now: number) {
  const t = totalsOf(windows);
  const s = stream.status;
  const alarm = (n: number, cls: string) => (n > 0 ? { text: formatCount(n), cls: `num ${cls}` } : "0");
  const freshness =
    stream.lastReadAt === null
      ? { text: FRESHNESS_TEXT.never, cls: "never" }
      : {
          text: `${ageText(stream.lastReadAt, now)}, ${FRESHNESS_TEXT[stream.freshness]}`,
          cls: stream.freshness,
          title: stream.lastReadAt.toISOString(),
        };
  return {
    key: `${s.account}/${s.stream}`,
    cells: [
      s.stream,
      formatCount(t.windows),
      formatCount(t.rows),
      formatCount(t.requests),
      alarm(t.throttled, "warn"),
      formatCount(t.retries),
      alarm(t.rejected, "warn"),
      alarm(t.held, "bad"),
      alarm(t.failed, "bad"),
      settledText(stream),
      alarm(s.rejectsPending, "warn"),
      freshness,
    ],
  };
}

const WINDOW_COLUMNS = [
  { key: "stream", label: "stream" },
  { key: "window", label: "window" },
  { key: "status", label: "status" },
  { key: "rows", label: "rows fetched", numeric: true },
  { key: "requests", label: "requests", numeric: true },
  { key: "throttled", label: "429s", numeric: true },
  { key: "retries", label: "retries", numeric: true },
  { key: "rejected", label: "rejected", numeric: true },
  { key: "deleted", label: "deleted", numeric: true },
] as const;

function windowRow(w: NightWindow) {
  const status = w.status === "held" && w.holdReason ? `held (${w.holdReason})` : w.status;
  return {
    key: `${w.account}/${w.stream}/${w.slice}`,
    cells: [
      w.stream,
      w.slice,
      { text: status, cls: w.status === "succeeded" ? "ok" : "bad", ...(w.error ? { title: w.error } : {}) },
      formatCount(w.rowsFetched),
      formatCount(w.requests),
      formatCount(w.throttled),
      formatCount(w.retries),
      formatCount(w.rowsRejected),
      w.rowsDeleted > 0 ? { text: formatCount(w.rowsDeleted), cls: "num warn" } : "0",
    ],
  };
}

/**
 * What the run's re-count of an account's settled windows did (windows checked against the
 * platform's totals, those that differed and were opened again), one item per line.
 */
function recountHtml(facts: NightFacts, account: string): string {
  const recounts = facts.recounts.filter((r) => r.account === account);
  if (recounts.length === 0) return "";
  const items = recounts.flatMap((r) =>
    recountLines(r.account, r.stream, r.record).map(
      (line, i) =>
        `<li${i > 0 ? ' class="warn"' : ""}><b>${escapeHtml(r.stream)}</b> ${escapeHtml(line)}</li>`,
    ),
  );
  const differing = recounts.reduce((n, r) => n + r.record.differing.length, 0);
  return `<p>Re-count of settled windows against the platform's totals:</p><ul data-recount-differing="${differing}">${items.join("")}</ul>`;
}

/** Held and failed windows of every stream, as `status` shows them: what to look at first. */
function problemsHtml(facts: NightFacts): string {
  const items: string[] = [];
  for (const { status: s } of facts.streams) {
    for (const w of s.heldWindows)
      items.push(
        `<li class="bad"><b>${escapeHtml(`${s.account}/${s.stream}`)}</b> held open ${escapeHtml(w.slice)} in run ${w.runId}: ${escapeHtml(w.error ?? "(no message)")}</li>`,
      );
    for (const w of s.failedWindows)
      items.push(
        `<li class="bad"><b>${escapeHtml(`${s.account}/${s.stream}`)}</b> failed ${escapeHtml(w.slice)} in run ${w.runId}: ${escapeHtml(w.error ?? "(no message)")}</li>`,
      );
  }
  if (items.length === 0) return `<p class="ok" data-problems="0">No held or failed windows.</p>`;
  return `<p>Held and failed windows (see <code>telecom-etl status</code>; the next run reads them again):</p><ul data-problems="${items.length}">${items.join("")}</ul>`;
}

/** The columns the run's `evolve` schema contracts added to landing tables, one item each; nothing when none. */
function schemaChangesHtml(facts: NightFacts): string {
  const changes = facts.schemaChanges ?? [];
  if (changes.length === 0) return "";
  const items = changes.map(
    (c) =>
      `<li class="warn"><b>${escapeHtml(`${c.stream}.${c.field}`)}</b> ${escapeHtml(c.columnType)}, first sent to account ${escapeHtml(c.firstAccount)} in window ${escapeHtml(c.firstWindow)}</li>`,
  );
  return `<p>Columns added to landing tables in this run by <code>schema_contract: evolve</code> (see <code>telecom-etl schema</code>):</p><ul data-schema-changes="${changes.length}">${items.join("")}</ul>`;
}

/** The loader's section of the page. */
export function loaderSection(facts: NightFacts, now: number): string {
  const parts = [
    "<section><h2>The loader, per account and stream</h2>",
    problemsHtml(facts),
    schemaChangesHtml(facts),
  ];
  const accounts = [
    ...new Set([
      ...facts.streams.map((s) => s.status.account),
      ...facts.windows.map((w) => w.account),
      ...facts.recounts.map((r) => r.account),
    ]),
  ].sort();
  for (const account of accounts) {
    const windows = facts.windows.filter((w) => w.account === account);
    const streams = facts.streams.filter((s) => s.status.account === account);
    parts.push(`<h3>${escapeHtml(account)}</h3>`);
    parts.push(recountHtml(facts, account));
    parts.push(
      htmlTable(
        `streams-${account}`,
        STREAM_COLUMNS,
        streams.map((s) =>
          streamRow(
            s,
            windows.filter((w) => w.stream === s.status.stream),
            now,
          ),
        ),
      ),
    );
    if (windows.length === 0) {
      parts.push(`<p class="muted">The run read nothing for ${escapeHtml(account)}.</p>`);
      continue;
    }
    parts.push(chartFigure(`rows-${account}`, rowsPerWindowChart(account, windows)));
    parts.push(chartFigure(`requests-${account}`, requestsPerWindowChart(account, windows)));
    parts.push(
      `<details><summary>${formatCount(windows.length)} slices of ${escapeHtml(account)} in the run, one by one</summary>${htmlTable(`windows-${account}`, WINDOW_COLUMNS, windows.map(windowRow))}</details>`,
    );
  }
  parts.push("</section>");
  return parts.join("\n");
}
