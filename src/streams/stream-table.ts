import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import { blockBodyIn, withBlockBody } from "../core/generated-block.js";
import {
  type LandingTable,
  monthPartitionColumn,
  primaryKeyOf,
  type WriteMode,
} from "../warehouse/connection/landing-table.js";
import { STREAMS } from "./registry.js";
import type { StreamDefinition } from "./stream-definition.js";

/**
 * The table of streams of docs/reference/warehouse-tables.md ("Landing tables"), generated from
 * the registry so that it cannot drift from the declarations (a block of src/core/generated-block.ts):
 * a unit test compares that page's block with this one, and
 * `make docs` (scripts/stream-table.mjs) writes it in place. What the declarations do not hold
 * (why a stream reads as it does) stays in the page's prose beside the table.
 */

/** The line opening the generated block in docs/reference/warehouse-tables.md. */
export const STREAM_TABLE_BEGIN =
  "<!-- stream-table: generated from src/streams/registry.ts by `make docs`; edit the streams, not this table -->";
/** The line closing the generated block. */
export const STREAM_TABLE_END = "<!-- /stream-table -->";

/** How each write mode lands a read, in the table's words (a new mode fails to compile until named here). */
const WRITTEN: Readonly<Record<WriteMode, string>> = {
  merge: "merged",
  replace_window: "the window's rows replaced",
  replace_all: "the account's whole set",
  replace_snapshot: "a dated snapshot: the day's replaced, older days kept",
  history: "history: a changed or deleted row closes its version (`valid_to`) and opens the new one",
};

const code = (text: string) => `\`${text}\``;

/** `GET <path>`, with the 2026 path when it differs, and the window's query for a date-windowed list. */
function readPath(resource: PlatformResource): string {
  const window = resource.window;
  const query =
    window === undefined
      ? ""
      : `?${window.from}=D&${window.to}=${window.toBound === "last_day" ? "D" : "D+1"}`;
  const path = code(`GET ${resource.paths["2024"]}${query}`);
  const newer = resource.paths["2026"];
  return newer === resource.paths["2024"] ? path : `${path} (2026 ${code(newer)})`;
}

/** How often and in what pieces the stream is read. */
function readWhen(stream: StreamDefinition): string {
  switch (stream.slicing) {
    case "date_window":
      return stream.table.windowColumn === undefined
        ? "per UTC day"
        : `per UTC day of ${code(stream.table.windowColumn)}`;
    case "full_refresh": {
      const when = stream.answer.kind === "pages" ? "every page every run" : "every run";
      const parents = stream.resource.paths["2024"].match(/\{[a-z_]+\}/g) ?? [];
      return parents.length === 0 ? when : `${when}, for each ${parents.map(code).join(" and ")}`;
    }
    case "lookup":
      return `one request per tracked ${code(stream.lookup?.trackedKind ?? "id")}`;
  }
}

/** The "read with" cell: the request and when, then how a `null` list reads and what the stream needs. */
function readWith(stream: StreamDefinition): string {
  const envelope = stream.resource.envelope;
  return [
    `${readPath(stream.resource)} ${readWhen(stream)}`,
    ...(envelope.shape === "paged" && envelope.nullable === true
      ? [`${code(`"${envelope.items}": null`)} read as no rows, counted`]
      : []),
    ...(stream.readWithMasterKey === true ? ["a sub-account's with its master's key"] : []),
    ...(stream.requires === undefined ? [] : [`needs ${stream.requires.map(code).join(", ")} enabled`]),
    ...(stream.product === undefined ? [] : [`403 "not provisioned" without ${stream.product}`]),
  ].join("; ");
}

/** A table's key as it identifies a row (a partitioned table's primary key adds its window column). */
function keyOf(table: LandingTable): string {
  const primary = primaryKeyOf(table);
  const unique = monthPartitionColumn(table) === null ? primary : primary.slice(0, -1);
  return code(`(${unique.join(", ")})`);
}

/** The "key" cell: the stream's table's key, then each child table's. */
function keys(stream: StreamDefinition): string {
  const children = (stream.children ?? []).map((child) => `${code(child.name)} ${keyOf(child.table)}`);
  return [keyOf(stream.table), ...children].join("; ");
}

/** The "written" cell: the write mode, whether windows settle, partitions and fields never stored. */
function written(stream: StreamDefinition): string {
  const partition = monthPartitionColumn(stream.table);
  return [
    WRITTEN[stream.table.writeMode],
    ...(stream.slicing === "date_window" ? ["windows settle"] : []),
    ...(stream.slicing === "lookup" ? ["with the id's state"] : []),
    ...(partition === null ? [] : [`partitioned by month of ${code(partition)}`]),
    ...(stream.secretFields ?? []).map((field) => `${code(field)} never stored`),
  ].join("; ");
}

/** One row of the table. */
function streamRow(stream: StreamDefinition): string {
  const tables = [stream.table, ...(stream.children ?? []).map((child) => child.table)]
    .map((table) => code(table.name))
    .join(" + ");
  return `| ${code(stream.name)} → ${tables} | ${readWith(stream)} | ${keys(stream)} | ${written(stream)} |`;
}

/** The table of every stream of the registry, in the registry's order, as markdown lines. */
export function streamTable(streams: readonly StreamDefinition[] = Object.values(STREAMS)): string {
  return [
    "| stream → table | read with | key | written |",
    "|---|---|---|---|",
    ...streams.map(streamRow),
  ].join("\n");
}

/** The page that holds the stream table, as errors name it. */
const STREAM_TABLE_PAGE = "docs/reference/warehouse-tables.md";

/** The stream table as `readme` holds it, between its markers. */
export function streamTableIn(readme: string): string {
  return blockBodyIn(readme, "stream-table", STREAM_TABLE_PAGE);
}

/** `readme` with its stream table replaced by `table`. */
export function withStreamTable(readme: string, table: string): string {
  return withBlockBody(readme, "stream-table", STREAM_TABLE_PAGE, table);
}
