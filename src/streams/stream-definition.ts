import { isRevisionDependent, type PlatformResource } from "@telecom-etl/platform/resource.js";
import type { z } from "zod";
import type { Slice } from "../core/slices.js";
import type { LandingColumn, LandingTable, WriteMode } from "../warehouse/connection/landing-table.js";
import type { CandidateKind } from "../warehouse/state/lookup-candidates.js";
import type { Implied, StreamColumn } from "./columns.js";
import { answerOf, listRequests, SLICING_OF_KIND } from "./resource-reading.js";
import type {
  AccountSources,
  RequestContext,
  Slicing,
  StreamAnswer,
  StreamRequest,
} from "./stream-requests.js";

export type { DateWindow, Slice } from "../core/slices.js";
export {
  type AccountSources,
  type AnswerCheck,
  type PagedAnswer,
  type RequestContext,
  SLICINGS,
  type Slicing,
  type StreamAnswer,
  type StreamRequest,
  type WholeAnswer,
} from "./stream-requests.js";

/** States of a looked-up id (`etl.tracked_requests.status`). */
export const TRACKED_STATES = ["pending", "final", "none", "expired", "not_found"] as const;
/**
 * `pending`: asked again next run (a 202, a validation in progress); `final`: answered for good;
 * `none`: the platform has nothing for it (404), never asked again; `expired`: pending for longer
 * than the stream waits; `not_found`: an id the platform does not know (a validation token's 404).
 */
export type TrackedState = (typeof TRACKED_STATES)[number];

/**
 * A value that looks like data but is not (an answered call without a charge): such rows load as
 * they are (nulls stay null) and are counted per slice in `etl.run_slices.quality` and the run
 * summary, with a warning.
 */
export interface QualityCheck {
  /** Key in `etl.run_slices.quality`, e.g. `missing_charge`. */
  readonly name: string;
  /** What a counted row is, for the warning. */
  readonly description: string;
  /** True when the typed columns of a loaded row have the problem. */
  test(columns: Readonly<Record<string, unknown>>): boolean;
  /**
   * The rows that must not have the problem (a CDR's: answered, rated, with a duration): when
   * given, a window where more than `max_missing_charge_share` of them have it (beyond chance) is
   * held instead of loaded.
   */
  billable?(columns: Readonly<Record<string, unknown>>): boolean;
}

/**
 * What a stream must ask the platform before its own requests, because they iterate over it: the
 * brands whose appeals load, the cities of a country whose numbers load. Each discovered row gives
 * implied values (`{ brand_id }`) that the stream's `requests` read from `context.discovered`.
 */
export interface Discovery {
  /** The listing requests (none when the config already names what to read). */
  requests(context: Omit<RequestContext, "discovered">): readonly StreamRequest[];
  readonly answer: StreamAnswer;
  /** The values one listed row gives the stream's requests (null to skip it), with its request's implied values. */
  values(row: unknown, implied: Implied): Implied | null;
}

/** How a lookup stream finds its ids and reads what the platform says of each. */
export interface LookupSpec {
  /** Which ids the warehouse proposes each run (see src/warehouse/state/lookup-candidates.ts). */
  readonly candidates: CandidateKind;
  /** The kind the ids are tracked under in `etl.tracked_requests`. */
  readonly trackedKind: string;
  /** Ids the account's config asks to track (validation tokens), started as pending before each run. */
  configured?(sources: AccountSources): readonly string[];
  /** What one answer (its HTTP status, 2xx or 404, and body) means for its id. */
  state(status: number, body: unknown): TrackedState;
}

/**
 * A second table a stream's rows feed (a transcription's turns, a validation's results): each
 * validated parent row gives its child rows, validated with the parent, written by key in the
 * parent's transaction.
 */
export interface ChildTable<Row = never> {
  /** Name of the child rows in records and messages (`transcription_turns`). */
  readonly name: string;
  /** The child row's schema (its declared fields are known; the others go to `_extra`). */
  readonly schema: z.ZodType;
  readonly columns: readonly StreamColumn<never>[];
  readonly table: LandingTable;
  /** The child rows of one validated parent row, each with the values it implies (the parent's key). */
  rows(parent: Row, implied: Implied): readonly { readonly row: unknown; readonly implied: Implied }[];
}

/** Where a stream's rows land, besides the columns (which come from the stream's `columns`). */
export interface TableSpec {
  /** Schema-qualified name (`platform.cdrs`). */
  readonly name: string;
  /** Columns identifying a row within its account; null when rows have no id (`replace_window`). */
  readonly key: readonly string[] | null;
  readonly writeMode: WriteMode;
  /** The column whose UTC date places a row in a window (see LandingTable.windowColumn). */
  readonly windowColumn?: string;
  /** Partitioned by calendar month of the window column (see LandingTable.partitionedByMonth). */
  readonly partitionedByMonth?: boolean;
}

/**
 * A stream is data plus a few hooks: where to read, how to slice, how to validate, what its
 * columns are and where and how they are written. Streams never touch the database or the network
 * themselves. Build one with {@link defineStream}.
 */
export interface StreamDefinition<Schema extends z.ZodType = z.ZodType> {
  /** The stream's name, its key in the registry (`src/streams/registry.ts`). */
  readonly name: string;
  /** The catalogue resource the stream reads (`packages/platform/src/catalogue.ts`): its paths, envelope, window. */
  readonly resource: PlatformResource;
  /** Permission a restricted key needs, as the platform names it (e.g. `billing:read`): the resource's. */
  readonly permission: string;
  readonly slicing: Slicing;
  /** Requests for one slice. */
  requests(slice: Slice, context: RequestContext): readonly StreamRequest[];
  /** True when the paths differ between API revisions (an `auto` account then asks the platform once per run). */
  readonly revisionDependent?: boolean;
  /** How one request's answer reads (pages of a list, or all rows at once). */
  readonly answer: StreamAnswer;
  /** What to list first, when the stream's requests iterate over the platform's own ids. */
  readonly discovery?: Discovery;
  /** Row schema from packages/platform/src (loose about unknown fields, which land in `_extra`). */
  readonly schema: Schema;
  /** The typed columns, declared once: name, PostgreSQL type, nullability, how to read them. */
  readonly columns: readonly StreamColumn<z.infer<Schema>>[];
  /** The landing table as the warehouse writes it (its columns are `columns`). */
  readonly table: LandingTable;
  /** Values that look like data but are not, counted per slice. */
  readonly qualityChecks?: readonly QualityCheck[];
  /**
   * Streams whose tables this one's reads depend on (transcriptions: the calls of `cdrs`, and which
   * of them can have one from `sip_trunks`' and `numbers`' settings): an account enabling it
   * without them is a config error, since its reads would silently miss what they cannot see.
   */
  readonly requires?: readonly string[];
  /**
   * Fields of the platform's rows that hold credentials (a sub-account's `api_key`, a trunk's
   * `access_token`): never a column, never in `_extra`, and masked in a reject's stored raw row.
   */
  readonly secretFields?: readonly string[];
  /** How a `lookup` stream finds its ids and reads each answer. */
  readonly lookup?: LookupSpec;
  /** The row schema for a request's implied values, when one stream reads two shapes (2024 and 2026 transcriptions). */
  schemaFor?(implied: Implied): z.ZodType;
  /** Tables the stream's rows also feed. */
  readonly children?: readonly ChildTable<z.infer<Schema>>[];
  /**
   * The paid product whose absence makes the platform answer this stream 403 "not provisioned"
   * (`speech analytics` for transcriptions): a 403 then reports the stream `not_provisioned` once,
   * a warning that fails nothing, rather than a key lacking a permission.
   */
  readonly product?: string;
  /**
   * The master reads its sub-accounts' share of this stream itself (their records, in its list):
   * the sub-account fan-out does not read the stream for them again.
   */
  readonly coversSubAccounts?: boolean;
  /**
   * A sub-account read by the fan-out reads this stream with its master's key (the ledger, at
   * `/v1/sub-organizations/{id}/billing/transactions`), under the sub-account's own name and state:
   * a sub-account added to the config reads it from `start_date` like its other streams.
   */
  readonly readWithMasterKey?: boolean;
}

/**
 * A stream as written in its file. What the catalogue resource says is derived unless the stream
 * needs more: the permission, whether paths differ by revision, the slicing (a `windowed_list` is
 * read by date window, a `lookup` per id, anything else whole), the row schema, how an answer reads
 * and, for a list read with one request, the requests. The landing table takes the declared columns.
 */
export type StreamSpec<Schema extends z.ZodType, Envelope = unknown> = Omit<
  StreamDefinition<Schema>,
  "table" | "answer" | "permission" | "revisionDependent" | "slicing" | "schema" | "requests" | "resource"
> & {
  readonly resource: PlatformResource<Schema>;
  readonly table: TableSpec;
  readonly answer?: StreamAnswer<Envelope>;
  readonly slicing?: Slicing;
  readonly revisionDependent?: boolean;
  /** The row schema when it is not the resource's item (a stream reading two shapes). */
  readonly schema?: z.ZodType;
  requests?(slice: Slice, context: RequestContext): readonly StreamRequest[];
};

/**
 * A landing table that keeps its declaration in its type: name, columns (their names, PostgreSQL
 * types and nullability), write mode and key, from which `PlatformTables` derives its row type.
 */
export interface DeclaredTable<
  Name extends string = string,
  Columns extends readonly LandingColumn[] = readonly LandingColumn[],
  Mode extends WriteMode = WriteMode,
  Key extends readonly string[] | null = readonly string[] | null,
> extends LandingTable {
  readonly name: Name;
  readonly columns: Columns;
  readonly writeMode: Mode;
  readonly key: Key;
}

/** A stream as {@link defineStream} returns it: its landing tables' declarations stay in its type. */
export type DefinedStream<
  Schema extends z.ZodType,
  Table extends TableSpec,
  Columns extends readonly StreamColumn<z.infer<Schema>>[],
  Children extends readonly ChildTable<z.infer<Schema>>[],
> = StreamDefinition<Schema> & {
  readonly columns: Columns;
  readonly table: DeclaredTable<Table["name"], Columns, Table["writeMode"], Table["key"]>;
  readonly children?: Children;
};

/** Builds a stream from its file's declaration (see {@link StreamSpec} for what is derived). */
export function defineStream<
  Schema extends z.ZodType,
  const Table extends TableSpec,
  const Columns extends readonly StreamColumn<z.infer<Schema>>[],
  const Children extends readonly ChildTable<z.infer<Schema>>[] = readonly [],
  Envelope = unknown,
>(
  spec: StreamSpec<Schema, Envelope> & {
    readonly table: Table;
    readonly columns: Columns;
    readonly children?: Children;
  },
): DefinedStream<Schema, Table, Columns, Children> {
  const { table, answer, resource, slicing, revisionDependent, schema, requests, ...rest } = spec;
  const declared: DeclaredTable<Table["name"], Columns, Table["writeMode"], Table["key"]> = {
    name: table.name,
    columns: spec.columns,
    key: table.key,
    writeMode: table.writeMode,
    ...(table.windowColumn === undefined ? {} : { windowColumn: table.windowColumn }),
    ...(table.partitionedByMonth === true ? { partitionedByMonth: true } : {}),
  };
  return {
    ...rest,
    resource,
    permission: resource.permission,
    slicing: slicing ?? SLICING_OF_KIND[resource.kind],
    revisionDependent: revisionDependent ?? isRevisionDependent(resource),
    schema: (schema ?? resource.item) as Schema,
    answer: (answer as StreamAnswer | undefined) ?? answerOf(resource),
    requests: requests ?? ((slice, context) => listRequests(spec.name, resource, slice, context)),
    table: declared,
  };
}
