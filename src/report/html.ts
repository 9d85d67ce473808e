/**
 * The few HTML helpers the report page needs: escaping, tables, and figures. Everything the page
 * shows passes through {@link escapeHtml} (account, stream, campaign names and error messages come
 * from outside), except chart SVG, which ECharts escapes itself.
 */

/** Escapes text for an HTML element or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A whole number with thousands separators (`12,345`). */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** A cell: text (escaped), or `{ text, cls }` for a class (alignment, colour). */
export type Cell = string | { readonly text: string; readonly cls?: string; readonly title?: string };

function cellHtml(cell: Cell, tag: "td" | "th", column: string | undefined): string {
  const { text, cls, title } =
    typeof cell === "string" ? { text: cell, cls: undefined, title: undefined } : cell;
  const attributes = [
    column === undefined ? "" : ` data-col="${escapeHtml(column)}"`,
    cls === undefined ? "" : ` class="${escapeHtml(cls)}"`,
    title === undefined ? "" : ` title="${escapeHtml(title)}"`,
  ].join("");
  return `<${tag}${attributes}>${escapeHtml(text)}</${tag}>`;
}

/**
 * A table named `name` (`data-table`), with one `data-col` per column (the header's key) and one
 * `data-key` per row, so a reader or a test can find a figure without counting cells.
 */
export function htmlTable(
  name: string,
  columns: readonly { readonly key: string; readonly label: string; readonly numeric?: boolean }[],
  rows: readonly { readonly key: string; readonly cells: readonly Cell[] }[],
): string {
  const head = columns
    .map((c) => cellHtml({ text: c.label, ...(c.numeric ? { cls: "num" } : {}) }, "th", undefined))
    .join("");
  const body = rows
    .map((row) => {
      const cells = row.cells.map((cell, i) => {
        const column = columns[i];
        const numeric =
          column?.numeric === true && typeof cell === "string" ? { text: cell, cls: "num" } : cell;
        return cellHtml(numeric, "td", column?.key);
      });
      return `<tr data-key="${escapeHtml(row.key)}">${cells.join("")}</tr>`;
    })
    .join("\n");
  return `<table data-table="${escapeHtml(name)}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A chart (inline SVG) named `name` (`data-chart`) with its caption. */
export function chartFigure(name: string, svg: string, caption?: string): string {
  const figcaption = caption === undefined ? "" : `<figcaption>${escapeHtml(caption)}</figcaption>`;
  return `<figure class="chart" data-chart="${escapeHtml(name)}">${svg}${figcaption}</figure>`;
}
