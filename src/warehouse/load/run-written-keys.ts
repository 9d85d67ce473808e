/**
 * The keys one run has written into each landing table partitioned by month for one account. A
 * row filed under one window can reappear under another (its date changed), and such a table
 * cannot see that as a key conflict (its key holds the date), so every row COPYed into a new
 * window is probed for its key outside the window: one primary-key lookup per row and month
 * partition, most of a first backfill's database time. When the table held no row of the account
 * before this run wrote it, a moved row can only be one this run wrote itself, so only the rows
 * whose keys the run may have written before need the probe (see insertIntoNewWindow).
 */
import type pg from "pg";
import { type LandingTable, type LoadRow, monthPartitionColumn } from "../connection/landing-table.js";
import { quoteTable } from "../connection/sql-names.js";
import { KeyFilter, KeyHash } from "./key-filter.js";

/** What the run knows of one table. */
interface TableKeys {
  /** Whether the table held no row of the account before the run's first write into it. */
  readonly emptyBefore: Promise<boolean>;
  /** How many times the run's locks had been taken again when that was read. */
  readonly lockSessions: number;
  readonly written: KeyFilter;
}

/**
 * A load narrowed its probe by the run's written keys, and the run's locks were taken again before
 * it committed: another run may have written a key meanwhile that the narrowed probe did not look
 * for. The load is rolled back and tried again, probing every row.
 */
export class WrittenKeysStale extends Error {
  constructor(table: string) {
    super(`the run's locks were taken again while a load into ${table} relied on the keys the run wrote`);
    this.name = "WrittenKeysStale";
  }
}

/** One hash reused for every row (no allocation per row). */
const hash = new KeyHash();

/** The run's written keys for one account (see the module comment). */
export class RunWrittenKeys {
  readonly #account: string;
  readonly #lockSessions: () => number;
  readonly #tables = new Map<string, TableKeys>();
  /** Per transaction (its client) that narrowed a probe: the table and the lock sessions it relied on. */
  readonly #narrowed = new WeakMap<pg.ClientBase, { table: string; lockSessions: number }>();

  /**
   * `lockSessions` counts the sessions the run's locks have been taken on: once it changes, another
   * run may have written while the locks were lost, and nothing is known any more.
   */
  constructor(account: string, lockSessions: () => number) {
    this.#account = account;
    this.#lockSessions = lockSessions;
  }

  /**
   * Called in the load's transaction before `rows` are written into `table`: remembers their keys
   * and returns those of them the run may have written before under another window (the only
   * ones that can have moved into this one), or undefined when that cannot be known (the table
   * held rows of the account before the run wrote it, or the locks were lost since, or the table
   * is not partitioned by month): then every row is probed.
   */
  async rowsWrittenBefore(
    client: pg.ClientBase,
    table: LandingTable,
    rows: readonly LoadRow[],
  ): Promise<readonly LoadRow[] | undefined> {
    if (monthPartitionColumn(table) === null || table.key === null) return undefined;
    const known = this.#tableKeys(client, table);
    // Rows from before the run, or locks taken again: nothing the run remembers can narrow the
    // probe for the rest of the run, so its keys are not even hashed.
    if (!(await known.emptyBefore) || known.lockSessions !== this.#lockSessions()) return undefined;
    // The first narrowing of the transaction relied on the oldest sessions count: it is kept.
    if (!this.#narrowed.has(client))
      this.#narrowed.set(client, { table: table.name, lockSessions: known.lockSessions });
    const before: LoadRow[] = [];
    for (const row of rows) {
      hash.reset();
      for (const column of table.key) hash.feed(String(row.columns[column]));
      if (known.written.add(hash)) before.push(row);
    }
    return before;
  }

  /**
   * Called in a load's transaction after its lock fence passed, just before its commit: throws
   * WrittenKeysStale when the transaction narrowed its probe (rowsWrittenBefore) and the run's
   * locks were taken again since the keys it relied on were read. The fence shows the locks are
   * held now; the unchanged count shows they were held all along.
   */
  confirmNarrowed(client: pg.ClientBase): void {
    const narrowed = this.#narrowed.get(client);
    this.#narrowed.delete(client);
    if (narrowed !== undefined && narrowed.lockSessions !== this.#lockSessions())
      throw new WrittenKeysStale(narrowed.table);
  }

  /** Forgets what a transaction on `client` narrowed (it rolled back): the client goes back to the pool. */
  forgetNarrowed(client: pg.ClientBase): void {
    this.#narrowed.delete(client);
  }

  /** The table's entry, its first read started on `client` (every write of the run awaits it). */
  #tableKeys(client: pg.ClientBase, table: LandingTable): TableKeys {
    const existing = this.#tables.get(table.name);
    if (existing !== undefined) return existing;
    const emptyBefore = client
      .query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${quoteTable(table.name)} WHERE _account = $1) AS found`,
        [this.#account],
      )
      .then((result) => result.rows[0]!.found !== true);
    const entry = { emptyBefore, lockSessions: this.#lockSessions(), written: new KeyFilter() };
    this.#tables.set(table.name, entry);
    // A failed read (its transaction is tried again) is read again by the next write.
    emptyBefore.catch(() => this.#tables.delete(table.name));
    return entry;
  }
}
