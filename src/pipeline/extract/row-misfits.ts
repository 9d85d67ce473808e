/**
 * Values a landing column cannot hold, found before the load: a row whose value is out of its
 * column's range (an `integer` given 3000000000) is a reject naming the column, the value and the
 * range, instead of a COPY that fails its whole window on every run. The ranges come from each
 * column's declared PostgreSQL type (src/warehouse/load/column-range.ts).
 */
import type { LoadRow } from "../../streams/load-row.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import type { LandingTable } from "../../warehouse/connection/landing-table.js";
import {
  type ColumnMisfit,
  type ColumnRangeCheck,
  columnRangeCheck,
} from "../../warehouse/load/column-range.js";
import type { RowIssue } from "./row-issue.js";

/**
 * The first value of a row (or of one of its child rows) that its landing column cannot hold (see
 * column-range.ts), as a reject's issue naming the column, the value and the range: such a row
 * would fail its window's COPY, and the window with it, on every run.
 */
export function misfitOf(
  stream: StreamDefinition,
  row: LoadRow,
  children: readonly { name: string; rows: readonly LoadRow[] }[],
): RowIssue | null {
  const own = rangeCheckOf(stream.table)(row.columns);
  if (own !== null) return misfitIssue(stream.table.name, own);
  // Indexed, not `entries()`: no iterator per row (this runs for every row of every load).
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    const table = stream.children![index]!.table;
    const check = rangeCheckOf(table);
    for (const childRow of child.rows) {
      const misfit = check(childRow.columns);
      if (misfit !== null) return misfitIssue(table.name, misfit, child.name);
    }
  }
  return null;
}

function misfitIssue(table: string, misfit: ColumnMisfit, child?: string): RowIssue {
  return {
    path: child === undefined ? misfit.column : `${child}.${misfit.column}`,
    code: "out_of_range",
    message: `${misfit.value} does not fit ${table}.${misfit.column} (${misfit.range})`,
  };
}

/** Each landing table's range check, made once (this runs for every row of every load). */
function rangeCheckOf(table: LandingTable): ColumnRangeCheck {
  let check = rangeChecks.get(table);
  if (check === undefined) {
    check = columnRangeCheck(table.columns);
    rangeChecks.set(table, check);
  }
  return check;
}

const rangeChecks = new WeakMap<LandingTable, ColumnRangeCheck>();
