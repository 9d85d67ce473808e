/**
 * A slice's schema contract, settled before its rows are parsed: under `evolve`, the columns its
 * raw rows ask for are added (and recorded) first, so the parse checks every value against the
 * columns as recorded, whichever slice added them; the load then writes the landing table with
 * those columns. Under any other contract (or none) nothing here touches the warehouse.
 */
import type { SchemaContract } from "../../config/config.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import type { LandingColumn } from "../../warehouse/connection/landing-table.js";
import {
  addEvolvedColumns,
  type ChangePlace,
  type EvolvedColumnType,
  listSchemaChanges,
  type SchemaChange,
} from "../../warehouse/state/schema-changes.js";
import { columnsToAdd } from "../extract/schema-contract.js";

/** What a slice's contract is and what it needs: the evolved columns, those it added, the stream to load with. */
export interface SliceContract {
  readonly contract: SchemaContract | undefined;
  /** The stream's evolved columns by field, as recorded (empty unless `evolve`). */
  readonly evolved: ReadonlyMap<string, EvolvedColumnType>;
  /** The columns this slice added (reported once, by it). */
  readonly added: readonly SchemaChange[];
  /** The stream whose landing table lists the evolved columns too (the stream itself when there are none). */
  readonly loadStream: StreamDefinition;
}

const NO_COLUMNS: ReadonlyMap<string, EvolvedColumnType> = new Map();

/**
 * The contract of a slice of `stream` whose requests read `requests` (raw rows): under `evolve`,
 * the recorded columns, plus the ones these rows ask for, added first (see addEvolvedColumns).
 */
export async function prepareContract(
  warehouse: Warehouse,
  stream: StreamDefinition,
  contract: SchemaContract | undefined,
  place: ChangePlace,
  requests: readonly { readonly rows: readonly unknown[] }[],
): Promise<SliceContract> {
  if (contract !== "evolve") return { contract, evolved: NO_COLUMNS, added: [], loadStream: stream };
  let recorded = await listSchemaChanges(warehouse.db, { stream: stream.name });
  let added: readonly SchemaChange[] = [];
  const wanted = columnsToAdd(
    stream,
    requests.flatMap((part) => part.rows),
    evolvedOf(recorded),
  );
  if (wanted.length > 0) {
    ({ recorded, added } = await addEvolvedColumns(
      warehouse.db,
      { stream: stream.name, table: stream.table.name },
      place,
      wanted,
    ));
  }
  return { contract, evolved: evolvedOf(recorded), added, loadStream: withEvolvedColumns(stream, recorded) };
}

function evolvedOf(changes: readonly SchemaChange[]): ReadonlyMap<string, EvolvedColumnType> {
  return new Map(changes.map((change) => [change.field, change.columnType]));
}

/** `stream` with its landing table's evolved columns after the declared ones (nullable: older rows have none). */
export function withEvolvedColumns(
  stream: StreamDefinition,
  changes: readonly SchemaChange[],
): StreamDefinition {
  if (changes.length === 0) return stream;
  const columns: LandingColumn[] = changes.map((c) => ({
    name: c.field,
    pgType: c.columnType,
    nullable: true,
  }));
  return { ...stream, table: { ...stream.table, columns: [...stream.table.columns, ...columns] } };
}
