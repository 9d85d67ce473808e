/**
 * One account made ready for a run: its client (key and rate budget), its API revision, the
 * re-count of its settled windows, and a job per selected stream with the windows planned for it
 * (or, for an account or sub-account that cannot be read, the reason each stream fails).
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { ApiClient } from "../../api/http-client.js";
import { DEFAULT_RECOUNT, settingsOf } from "../../config/config.js";
import { AuthError } from "../../core/errors.js";
import { getStream } from "../../streams/registry.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import type { StreamLocks } from "../../warehouse/coordination/stream-locks.js";
import { RunWrittenKeys } from "../../warehouse/load/run-written-keys.js";
import type { AccountClient, AccountClients } from "../clients/account-clients.js";
import { resolveApiRevision } from "../clients/api-revision.js";
import { type RecountTally, recountAccount } from "../plan/recount-windows.js";
import type { RunTarget } from "../plan/select-targets.js";
import { planSlices } from "./plan-slices.js";
import type { PipelineDeps, RunRequest } from "./run-request.js";
import { addRecount, newTally, type StreamJob } from "./run-stream.js";

/** What every account of one run is prepared with: the run's request, day, id, locks and clients. */
export interface RunScope {
  readonly deps: PipelineDeps;
  readonly request: RunRequest;
  readonly today: string;
  readonly runStartedAt: Date;
  readonly runId: number;
  readonly locks: StreamLocks;
  readonly clients: AccountClients;
}

/** An account ready to load: the account the platform answered as, its streams' jobs, and notes for the operator. */
export interface PreparedAccount {
  readonly ready: AccountClient["account"];
  readonly jobs: StreamJob[];
  readonly notes: string[];
}

/**
 * Prepares one account (see the file's header). A key the platform refuses stops the account:
 * its jobs plan windows that are then reported not run.
 */
export async function prepareAccount(scope: RunScope, target: RunTarget): Promise<PreparedAccount> {
  const { deps, clients } = scope;
  const notes: string[] = [];
  const ready = await clients.clientFor(target.account, deps.signal);
  const accountAbort = new AbortController();
  const revision =
    "client" in ready ? await accountRevision(deps, target, ready.client, scope.today, accountAbort) : "2024";
  // A sub-account's ledger is read with its master's key, whether or not its own key could be had.
  const readers = new Map<string, AccountClient>();
  for (const stream of target.streams)
    readers.set(
      stream.name,
      stream.readWithMasterKey === true ? await clients.masterClientFor(target.account, deps.signal) : ready,
    );
  const recounts = await recountBeforePlanning(deps, scope.request, {
    runId: scope.runId,
    locks: scope.locks,
    today: scope.today,
    ready,
    readers,
    revision,
    accountAbort,
  });
  const jobs: StreamJob[] = [];
  for (const stream of target.streams) {
    const reader = readers.get(stream.name)!;
    const job = await streamJobOf(scope, target, stream, { ready, reader, revision, accountAbort, notes });
    addRecount(job.tally, recounts.get(stream.name));
    jobs.push(job);
  }
  if ("failure" in ready) deps.log.error({ account: target.account.name }, ready.failure.message);
  return { ready: ready.account, jobs, notes };
}

/**
 * One stream's job: its windows planned (a skipped settled range noted), its tally, and its client;
 * a stream whose reader failed plans no window and fails (or, for a refused master key, is not run).
 */
async function streamJobOf(
  scope: RunScope,
  target: RunTarget,
  stream: StreamDefinition,
  account: {
    readonly ready: AccountClient;
    readonly reader: AccountClient;
    readonly revision: ApiRevision;
    readonly accountAbort: AbortController;
    readonly notes: string[];
  },
): Promise<StreamJob> {
  const { deps, request, today } = scope;
  const { reader, accountAbort } = account;
  const settings = settingsOf(deps.config, stream.name);
  const plan = await planSlices(
    deps,
    request,
    target.account.name,
    stream,
    { today, readAt: scope.runStartedAt.getTime(), settleHours: settings.settleHours },
    (skipped) => {
      if (skipped > 0)
        account.notes.push(
          `${target.account.name}/${stream.name}: ${skipped} window(s) of the range already settled, not read again (--refetch reads them)`,
        );
    },
  );
  const tally = newTally(target.account.name, stream.name, plan.length);
  if ("failure" in reader && reader.failure instanceof AuthError) {
    // Its master's key was refused or its host cannot be reached: the account stops, as the master does.
    if (!accountAbort.signal.aborted) accountAbort.abort(reader.failure);
    tally.windowsNotRun = plan.length;
  } else if ("failure" in reader) {
    // Nothing of a sub-account whose key could not be had is read: each stream fails saying why.
    tally.windowsFailed = Math.max(1, plan.length);
    tally.errors.push(reader.failure.message);
  }
  return {
    id: `${target.account.name}/${stream.name}`,
    account: account.ready.account,
    stream,
    plan: "client" in reader ? plan : [],
    settings,
    revision: account.revision,
    client: "client" in reader ? reader.client : unusable(reader.failure),
    concurrency: "client" in reader ? reader.budget.budget.concurrency : 1,
    streamAbort: new AbortController(),
    accountAbort,
    tally,
    writtenKeys: new RunWrittenKeys(target.account.name, () => scope.locks.sessions),
  };
}

/**
 * The re-count of an account's settled windows, before its windows are planned (so a window that
 * differs is planned again): a nightly `run`'s budgeted share, every settled window of a
 * `recount`'s range, none for a backfill or an account that cannot be read.
 */
async function recountBeforePlanning(
  deps: PipelineDeps,
  request: RunRequest,
  input: {
    readonly runId: number;
    readonly locks: StreamLocks;
    readonly today: string;
    readonly ready: AccountClient;
    readonly readers: ReadonlyMap<string, AccountClient>;
    readonly revision: ApiRevision;
    readonly accountAbort: AbortController;
  },
): Promise<Map<string, RecountTally>> {
  const { ready, today } = input;
  if (request.command === "backfill" || !("client" in ready) || input.accountAbort.signal.aborted)
    return new Map();
  const streams = [...input.readers].flatMap(([name, reader]) =>
    "client" in reader ? [{ stream: getStream(name), client: reader.client }] : [],
  );
  return recountAccount(
    {
      warehouse: deps.warehouse,
      runId: input.runId,
      log: deps.log,
      signal: deps.signal,
      locks: input.locks,
      account: ready.account,
      revision: input.revision,
      concurrency: ready.budget.budget.concurrency,
      accountAbort: input.accountAbort,
    },
    streams,
    request.command === "recount"
      ? { kind: "range", today, from: request.from, to: request.to }
      : {
          kind: "nightly",
          today,
          ...(request.until === undefined ? {} : { until: request.until }),
          settings: deps.config.recount ?? DEFAULT_RECOUNT,
          windowDays: deps.config.windowDays,
        },
  );
}

/** A client for a sub-account whose key could not be had: its jobs plan no slice, so it is never called. */
function unusable(failure: Error): ApiClient {
  return {
    account: "",
    getJson: () => Promise.reject(failure),
    close: () => {},
  };
}

/**
 * The API revision an account is read with this run: configured, or asked of the platform once
 * (only when one of its streams has revision-dependent paths). A key the platform refuses stops
 * the account here, like a 401 on its first window would.
 */
async function accountRevision(
  deps: PipelineDeps,
  target: RunTarget,
  client: ApiClient,
  today: string,
  accountAbort: AbortController,
): Promise<ApiRevision> {
  const setting = target.account.apiRevision ?? "auto";
  if (setting === "auto" && !target.streams.some((s) => s.revisionDependent === true)) return "2024";
  try {
    return await resolveApiRevision({ client, setting, today, log: deps.log, signal: deps.signal });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    accountAbort.abort(error);
    deps.log.error({ account: target.account.name }, error.message);
    return "2024";
  }
}
