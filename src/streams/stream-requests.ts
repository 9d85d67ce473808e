/**
 * What a stream asks the platform and how it reads the answer: its slicing, its requests and their
 * context, and the shapes of an answer. Read by the stream declarations (stream-definition.ts)
 * and by the defaults they fall back on (resource-reading.ts).
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { Pagination } from "@telecom-etl/platform/common.js";
import type { z } from "zod";
import type { Implied } from "./columns.js";

/** How a stream is cut into slices. */
export const SLICINGS = ["date_window", "full_refresh", "lookup"] as const;
/**
 * `date_window`: UTC date windows with state; `full_refresh`: all pages every run, one slice;
 * `lookup`: one request per id the warehouse proposes (a call's transcription), in batches, each
 * id's state tracked in `etl.tracked_requests` so it is asked again only while it can change.
 */
export type Slicing = (typeof SLICINGS)[number];

/** What an account's id-driven streams read: ids from the config, as opposed to ids the platform lists. */
export interface AccountSources {
  /** Sub-accounts to load and read as accounts of their own. */
  readonly subAccounts: readonly number[];
  /** 10DLC brands whose appeals load; undefined: every brand the platform lists. */
  readonly brandIds: readonly string[] | undefined;
  /** Validation tokens to poll. */
  readonly validationTokens: readonly string[];
  /** Countries (and the text-enabled filter) of the daily number-catalog snapshot. */
  readonly numberCatalog: { readonly countries: readonly number[]; readonly textEnabledOnly: boolean };
}

/** One paginated request a slice needs (CDRs need two: placed and received). */
export interface StreamRequest {
  readonly path: string;
  /** Query parameters other than page and per_page. */
  readonly query: Readonly<Record<string, string>>;
  /** Values the request implies for every row it returns (e.g. `{ direction: "placed" }`). */
  readonly implied: Readonly<Record<string, string>>;
  /** For a lookup: the id the request asks about (its state is tracked). */
  readonly lookupId?: string;
}

/** What a stream's requests may depend on besides the slice. */
export interface RequestContext {
  /** The account's name as configured (the ledger of a sub-account is named after it). */
  readonly account: string;
  /** The revision of the platform's API the account is read with. */
  readonly revision: ApiRevision;
  /** The ids the account's config names (brands, sub-accounts, countries, tokens). */
  readonly sources: AccountSources;
  /** The run's UTC day (the date of a dated snapshot). */
  readonly today: string;
  /** For a sub-account read as an account of its own (the fan-out), its id on the platform. */
  readonly subAccountId?: number;
  /** What the stream's discovery found for this slice (brand ids, cities), each as implied values. */
  readonly discovered: readonly Implied[];
}

/**
 * A valid answer that may not mean what it says (a list sent as `null`): read as the stream says,
 * but counted per slice in `etl.run_slices.quality` (key `name`) and the run summary, with a warning.
 */
export interface AnswerCheck<Envelope = unknown> {
  /** Key in `etl.run_slices.quality`, e.g. `null_list`. */
  readonly name: string;
  /** What a counted page is and how it was read, for the warning. */
  readonly description: string;
  /** True when the page's parsed envelope has the problem. */
  test(body: Envelope): boolean;
}

/**
 * One page of a list answer as the stream reads it: the envelope's schema (from `packages/platform/src`),
 * the rows in it (still unchecked: each is validated on its own) and its pagination.
 */
export interface PagedAnswer<Envelope = unknown> {
  readonly kind: "pages";
  readonly envelope: z.ZodType<Envelope>;
  rows(body: Envelope): readonly unknown[];
  /** The page's pagination, or null for a valid empty answer that carries none (invoices: `is_empty`). */
  pagination(body: Envelope): Pagination | null;
  /**
   * Fields whose JSON numbers the body is parsed with exactly, as their source text (the ledger's
   * `amount`, `balance_after`, int64 `id`; see packages/platform/src/exact-number.ts).
   */
  readonly exactNumbers?: readonly string[];
  /** Pages that are valid but worth an operator's eye, counted per slice. */
  readonly checks?: readonly AnswerCheck<Envelope>[];
}

/**
 * An answer that holds every row at once, with no pagination: a bare array (webhooks,
 * appeals) or a single object (a sub-account); `rows` gives the rows it holds.
 */
export interface WholeAnswer<Envelope = unknown> {
  readonly kind: "whole";
  readonly envelope: z.ZodType<Envelope>;
  rows(body: Envelope): readonly unknown[];
}

/** How one request's answer reads. */
export type StreamAnswer<Envelope = unknown> = PagedAnswer<Envelope> | WholeAnswer<Envelope>;
