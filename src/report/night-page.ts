import { runLabel } from "../warehouse/state/run-history.js";
import { escapeHtml, formatCount } from "./html.js";
import { loaderSection, totalsOf } from "./loader-section.js";
import type { MartsFacts } from "./marts-facts.js";
import { martsSection } from "./marts-section.js";
import type { NightFacts } from "./night-facts.js";

/**
 * The report as one self-contained HTML page: inline CSS, charts as inline SVG, no script, no
 * font, no image to fetch. Its Content-Security-Policy forbids loading anything at all, so a page
 * opened from a mail attachment or a file share shows the same thing offline as online.
 */

/** What the page is made of. */
export interface NightPageInput {
  readonly night: NightFacts;
  readonly marts: MartsFacts | null;
  /** The marts the page needs that are not built (when `marts` is null). */
  readonly missingMarts: readonly string[];
  /** When the page was made (epoch ms). */
  readonly now: number;
  /** Where the warehouse is, without credentials. */
  readonly warehouse: string;
}

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1040px; padding: 16px 24px 48px; color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.muted { color: #59636e; }
.ok { color: #1a7f37; }
.warn, .late { color: #9a6700; }
.bad, .stale { color: #cf222e; }
.never { color: #59636e; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; padding: 1px 4px; border-radius: 4px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 12.5px; }
th, td { padding: 3px 6px; border-bottom: 1px solid #eaeef2; text-align: left; white-space: nowrap; }
th { background: #f6f8fa; font-weight: 600; white-space: normal; vertical-align: bottom; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.chart { margin: 8px 0 16px; }
figure.chart svg { max-width: 100%; height: auto; }
.cards { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0; }
.card { flex: 1 1 0; border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 10px; min-width: 80px; }
.card b { display: block; font-size: 18px; }
details { margin: 4px 0 16px; }
summary { cursor: pointer; color: #0969da; }
ul { padding-left: 20px; }
`;

/** `Nightly <b>7</b>` for a nightly, `Run <b>7</b> (<code>backfill</code>)` for another command (see runLabel). */
function runHeadHtml(run: NonNullable<NightPageInput["night"]["run"]>): string {
  const id = `<b data-run-id="${run.id}">${run.id}</b>`;
  return run.command === "nightly" ? `Nightly ${id}` : `Run ${id} (<code>${escapeHtml(run.command)}</code>)`;
}

function headerHtml(input: NightPageInput): string {
  const run = input.night.run;
  const made = new Date(input.now).toISOString().replace(/\.\d+Z$/, "Z");
  if (run === null) {
    return `<h1>telecom-etl: no run yet</h1><p class="muted">Made ${made} from ${escapeHtml(input.warehouse)}. Nothing has been loaded: run <code>telecom-etl nightly</code>.</p>`;
  }
  const started = run.startedAt.toISOString().replace(/\.\d+Z$/, "Z");
  const took =
    run.finishedAt === null
      ? "not finished"
      : `took ${Math.round((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000)} s${run.command === "nightly" ? " (load and dbt steps)" : ""}`;
  const exit = run.exitCode === null ? "" : `, exit ${run.exitCode}`;
  const cls = run.status === "succeeded" ? "ok" : run.status === "quarantined" ? "warn" : "bad";
  const t = totalsOf(input.night.windows);
  const card = (label: string, value: number, alarm = "") =>
    `<div class="card${value > 0 && alarm ? ` ${alarm}` : ""}" data-card="${escapeHtml(label)}"><b>${formatCount(value)}</b>${escapeHtml(label)}</div>`;
  return [
    `<h1>telecom-etl: the night of ${started.slice(0, 10)}</h1>`,
    `<p>${runHeadHtml(run)} started ${started}, ${took}: <b class="${cls}" data-run-status>${escapeHtml(run.status)}</b>${exit}.</p>`,
    `<p class="muted">Made ${made} from ${escapeHtml(input.warehouse)}, from the control tables <code>etl.*</code> and the marts.</p>`,
    `<div class="cards">`,
    card("slices", t.windows),
    card("rows fetched", t.rows),
    card("requests", t.requests),
    card("429s", t.throttled, "warn"),
    card("retries", t.retries),
    card("rows rejected", t.rejected, "warn"),
    card("held", t.held, "bad"),
    card("failed", t.failed, "bad"),
    `</div>`,
  ].join("\n");
}

/** The whole page. */
export function nightPage(input: NightPageInput): string {
  const run = input.night.run;
  const title =
    run === null
      ? "telecom-etl report"
      : `telecom-etl: ${runLabel(run.command, run.id).replace(/ \(run\)$/, "")}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${headerHtml(input)}
${loaderSection(input.night, input.now)}
${martsSection(input.marts, input.missingMarts)}
</body>
</html>
`;
}
