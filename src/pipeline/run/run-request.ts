/**
 * What {@link runPipeline} is asked (a load or a re-count), what it works with, and what it
 * answers: the run's request, dependencies and result, apart from the run itself so the pieces
 * it calls (planning, the distributed units) read them without importing the run.
 */
import type { SharedRateBuckets } from "../../api/shared-token-bucket.js";
import type { EtlConfig } from "../../config/config.js";
import type { ExitCode } from "../../core/exit-codes.js";
import type { KnownSecrets } from "../../core/known-secrets.js";
import type { Logger } from "../../core/log.js";
import type { Clock, Sleep } from "../../core/ports.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import type { AcceptedHolds } from "../holds/accepted-holds.js";
import type { ProgressReporter } from "./run-progress.js";
import type { StreamSummary } from "./run-stream.js";

/** What to run: a nightly `run` (up to today or `until`) or a `backfill` of [from, to]. */
export type PipelineRequest =
  | {
      readonly command: "run";
      readonly accounts?: readonly string[];
      readonly streams?: readonly string[];
      /** Last day to load, inclusive. */
      readonly until?: string;
      readonly lockTimeoutMs?: number;
      /** Holds the operator confirmed (`--accept-shrink`, `--accept-drift`). */
      readonly accepted?: AcceptedHolds;
      /** Only the accounts named (a master without its sub-accounts): a distributed work unit. */
      readonly exactAccounts?: boolean;
    }
  | {
      readonly command: "backfill";
      readonly accounts?: readonly string[];
      readonly streams: readonly string[];
      /** First and last day, inclusive. */
      readonly from: string;
      readonly to: string;
      /** Read the windows of the range that are settled already too (`--refetch`); default: skip them. */
      readonly refetch?: boolean;
      readonly lockTimeoutMs?: number;
      /** Holds the operator confirmed (`--accept-shrink`, `--accept-drift`). */
      readonly accepted?: AcceptedHolds;
      /** Only the accounts named (a master without its sub-accounts): a distributed work unit. */
      readonly exactAccounts?: boolean;
    };

/**
 * `telecom-etl recount`: every settled window of [from, to] (both inclusive) of the re-counted
 * streams counted against the platform's totals, those that differ opened again; nothing loaded.
 */
export interface RecountRequest {
  readonly command: "recount";
  readonly accounts?: readonly string[];
  readonly streams?: readonly string[];
  readonly from: string;
  readonly to: string;
  readonly lockTimeoutMs?: number;
  readonly accepted?: undefined;
  readonly exactAccounts?: undefined;
}

/** Everything {@link runPipeline} runs: a load, or a re-count. */
export type RunRequest = PipelineRequest | RecountRequest;

/** Side effects and process facts the pipeline works with. */
export interface PipelineDeps {
  readonly config: EtlConfig;
  readonly warehouse: Warehouse;
  readonly log: Logger;
  /** Aborted on SIGINT/SIGTERM: no new window starts; loads in flight finish. */
  readonly signal: AbortSignal;
  readonly host: string;
  readonly pid?: number;
  /** The instant "today" is taken from (default: the clock now); captured once. */
  readonly runStartedAt?: number;
  readonly clock?: Clock;
  readonly sleep?: Sleep;
  readonly progress?: ProgressReporter;
  /** Keep-alive interval of the run's lock session (default 5 s; tests shorten it). */
  readonly lockHeartbeatMs?: number;
  /**
   * The secrets the run knows, masked wherever a row is stored or logged (the CLI shares it with its
   * logger); default a set of the run's own. The accounts' keys are added at the start.
   */
  readonly secrets?: KnownSecrets;
  /** The distributed run this run is a work unit of (recorded in `etl.runs.arguments.unit_of_run`). */
  readonly unitOfRun?: number;
  /**
   * Refresh the planner statistics of the tables the run changed (default true). A distributed
   * unit says false: its coordinator refreshes them once, after every unit (40 units analyzing one
   * table at once would queue on its lock).
   */
  readonly refreshStatistics?: boolean;
  /** One token bucket per key in the warehouse, for distributed workers; default: in memory. */
  readonly sharedRateBuckets?: SharedRateBuckets;
}

/** Rate a key's budget settled on. */
export interface BudgetSummary {
  readonly accounts: readonly string[];
  readonly currentRate: number;
  readonly maxRate: number;
  readonly throttled: number;
}

/** What a run did. */
export interface PipelineResult {
  readonly runId: number;
  readonly runStartedAt: Date;
  readonly today: string;
  readonly streams: readonly StreamSummary[];
  readonly budgets: readonly BudgetSummary[];
  readonly exitCode: ExitCode;
  readonly status: string;
  /** Things the operator should know about how the request was read (one line each). */
  readonly notes: readonly string[];
}
