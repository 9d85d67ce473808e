/**
 * The platform half of `telecom-etl check`, per account: the key is set, the host answers, the
 * platform accepts the key, which API revision it is read with, each enabled stream's permission
 * (one cheap request each, see stream-probe.ts) and the platform's clock against this run's.
 * Every outcome is an item; nothing here throws for what it finds.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { type ApiClient, type ApiResponse, createApiClient } from "../api/http-client.js";
import { RetriesExhaustedError } from "../api/retry-policy.js";
import { type AccountConfig, type EtlConfig, keyProblem } from "../config/config.js";
import {
  AuthError,
  describeError,
  PermissionError,
  RetryableError,
  SliceError,
  UnreachableHostError,
} from "../core/errors.js";
import type { KnownSecrets } from "../core/known-secrets.js";
import type { Clock } from "../core/ports.js";
import { utcDayOf } from "../core/utc-days.js";
import { type ProbeOutcome, revisionFromProbe, revisionProbe } from "../pipeline/clients/api-revision.js";
import { parseDateHeader, SKEW_WARN_MS } from "../pipeline/extract/platform-clock.js";
import { getStream } from "../streams/registry.js";
import type { StreamDefinition } from "../streams/stream-definition.js";
import type { CheckItem, CheckStatus } from "./check-item.js";
import { streamProbe } from "./stream-probe.js";

/** A check asks at most twice per request, waiting at most 2 s in all: it must answer in seconds. */
export const CHECK_RETRY = { maxAttempts: 2, maxTotalWaitMs: 2_000 } as const;

/** What the account checks work with. */
export interface AccountCheckDeps {
  readonly config: EtlConfig;
  /** The environment the keys are read from (the config kept an unset key as empty). */
  readonly env: NodeJS.ProcessEnv;
  /** The instant a run started now would take as "now" (TELECOM_ETL_NOW or the clock), for the clock item. */
  readonly runStartedAt: number;
  readonly clock: Clock;
  readonly secrets: KnownSecrets;
  readonly signal?: AbortSignal;
}

/** Adds one item of the account being checked. */
type AddItem = (item: string, status: CheckStatus, detail: string) => void;

/** One request of a check: its answer, or what it threw. */
type Sent = { response: ApiResponse } | { error: unknown };

/** Sends a check's requests through one client, keeping each answer's `Date` header and arrival. */
class CheckSender {
  readonly dates: { readonly header: IncomingHttpHeaders["date"]; readonly receivedAt: number }[] = [];

  constructor(
    private readonly client: ApiClient,
    private readonly deps: AccountCheckDeps,
  ) {}

  async send(
    path: string,
    query: Readonly<Record<string, string | number>>,
    stream?: StreamDefinition,
  ): Promise<Sent> {
    try {
      const response = await this.client.getJson(path, query, {
        signal: this.deps.signal,
        ...(stream === undefined ? {} : { stream: stream.name, permission: stream.permission }),
      });
      this.dates.push({ header: response.headers.date, receivedAt: this.deps.clock.now() });
      return { response };
    } catch (error) {
      return { error };
    }
  }
}

/** The items of one account, streams limited to `streams` when given. */
export async function checkAccount(
  deps: AccountCheckDeps,
  account: AccountConfig,
  streams?: readonly string[],
): Promise<CheckItem[]> {
  const subject = `account ${account.name}`;
  const items: CheckItem[] = [];
  const add: AddItem = (item, status, detail) => items.push({ subject, item, status, detail });
  const missing = keyProblem(account.name, account.apiKeyEnv, deps.env[account.apiKeyEnv]);
  if (missing !== undefined) {
    add(
      "key",
      "fail",
      `${missing.replace(`account ${account.name}: `, "")}; the account was not checked further`,
    );
    return items;
  }
  const client = createApiClient({
    baseUrl: account.baseUrl,
    apiKey: account.apiKey.reveal(),
    account: account.name,
    apiKeyEnvVar: account.apiKeyEnv,
    timeouts: deps.config.timeouts,
    retry: CHECK_RETRY,
    clock: deps.clock,
    secrets: deps.secrets,
  });
  try {
    await checkReachableAccount(deps, account, new CheckSender(client, deps), add, streams);
    return items;
  } finally {
    client.close();
  }
}

/**
 * The items of an account whose key is set: reachable and key (from the API revision probe; a host
 * that cannot be reached, a transient failure or a refused key ends the check there), the API
 * revision, each stream, and the platform's clock.
 */
async function checkReachableAccount(
  deps: AccountCheckDeps,
  account: AccountConfig,
  sender: CheckSender,
  add: AddItem,
  streams: readonly string[] | undefined,
): Promise<void> {
  const startedOnClock = deps.clock.now();
  const runNow = (at: number) => deps.runStartedAt + (at - startedOnClock);
  const today = utcDayOf(deps.runStartedAt);
  const setting = account.apiRevision ?? "auto";
  const probe = revisionProbe(today, setting === "auto" ? "2026" : setting);
  const sentAt = deps.clock.now();
  const first = await sender.send(probe.path, probe.query);
  if ("error" in first && !firstAnswerUsable(account, first.error, add)) return;
  // Any other answer (a 403, a 404, a 422 included) came from a platform that accepted the key.
  add("reachable", "ok", `${account.baseUrl} answered in ${deps.clock.now() - sentAt} ms`);
  add("key", "ok", `accepted (env var ${account.apiKeyEnv})`);
  const outcome = "response" in first ? { status: first.response.status } : { error: first.error };
  const revision = revisionItem(account, probe.path, outcome, add);
  const selected =
    streams === undefined ? account.streams : account.streams.filter((s) => streams.includes(s));
  for (const name of selected) await checkStream(account, getStream(name), { sender, revision, today, add });
  clockItem(sender.dates, runNow, deps.config.missingClockMarginHours ?? 24, add);
}

/**
 * False (after adding why) when the first request's failure ends the check: the host cannot be
 * reached, the failure is transient (try again), or the key is refused.
 */
function firstAnswerUsable(account: AccountConfig, error: unknown, add: AddItem): boolean {
  if (error instanceof UnreachableHostError) {
    add("reachable", "fail", describeError(error).replace(`account ${account.name}: `, ""));
    return false;
  }
  if (isTransient(error)) {
    add(
      "reachable",
      "unknown",
      `no usable answer from ${account.baseUrl}: ${describeError(error)}; try again`,
    );
    return false;
  }
  if (error instanceof AuthError) {
    add("reachable", "ok", `${account.baseUrl} answered`);
    add("key", "fail", describeError(error).replace(`account ${account.name}: `, ""));
    return false;
  }
  return true;
}

/** One stream's item: a stream that needs another enabled fails saying which; else its probe's verdict. */
async function checkStream(
  account: AccountConfig,
  stream: StreamDefinition,
  probe: {
    readonly sender: CheckSender;
    readonly revision: ApiRevision;
    readonly today: string;
    readonly add: AddItem;
  },
): Promise<void> {
  const missingStreams = (stream.requires ?? []).filter((n) => !account.streams.includes(n));
  if (missingStreams.length > 0) {
    probe.add(
      `stream ${stream.name}`,
      "fail",
      `needs ${missingStreams.join(" and ")} enabled too (it reads what their tables hold); add ${missingStreams.join(", ")} to the account's streams`,
    );
    return;
  }
  const request = streamProbe(stream, account, probe.revision, probe.today);
  const outcome = await probe.sender.send(request.path, request.query, stream);
  const [status, detail] = streamVerdict(stream, request, outcome);
  probe.add(`stream ${stream.name}`, status, detail);
}

/** A failure that says nothing about the configuration: a timeout, a 5xx, a 429, a reset, once retries ran out. */
function isTransient(error: unknown): boolean {
  return error instanceof RetriesExhaustedError || error instanceof RetryableError;
}

/** The revision item: configured, or what the probe's answer shows; returns the revision the streams are probed with. */
function revisionItem(
  account: AccountConfig,
  path: string,
  outcome: ProbeOutcome,
  add: (item: string, status: CheckStatus, detail: string) => void,
): ApiRevision {
  const setting = account.apiRevision ?? "auto";
  if (setting !== "auto") {
    add("API revision", "ok", `${setting} (configured)`);
    return setting;
  }
  const verdict = revisionFromProbe(path, outcome);
  if ("undecided" in verdict) {
    add(
      "API revision",
      "warn",
      `could not tell (${verdict.undecided}): runs read with 2024; set api_revision (2024 or 2026) for this account to choose`,
    );
    return "2024";
  }
  add("API revision", "ok", `${verdict.revision} (auto: ${verdict.because})`);
  return verdict.revision;
}

/** What a stream's probe answer means: may the key read it? */
function streamVerdict(
  stream: StreamDefinition,
  probe: ReturnType<typeof streamProbe>,
  outcome: { response: ApiResponse } | { error: unknown },
): [CheckStatus, string] {
  const asked = `GET ${probe.path}`;
  if ("response" in outcome) {
    const { status, body } = outcome.response;
    if (status === 404) {
      return probe.notFoundIsOk
        ? ["ok", `${asked} answered 404 for a made-up id, as a permitted key does (${stream.permission})`]
        : [
            "fail",
            `${asked} answered 404: the platform has no such list; check the account's api_revision and base_url`,
          ];
    }
    const parsed = probe.answer.envelope.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return [
        "warn",
        `${asked} answered ${status}, but not in the shape the stream reads (${issue?.path.join(".") || "(root)"}: ${issue?.message}): a run would fail its windows`,
      ];
    }
    return ["ok", `${asked} answered ${status} (${stream.permission})`];
  }
  const error = outcome.error;
  if (error instanceof PermissionError) {
    if (stream.product !== undefined) {
      return [
        "warn",
        `not provisioned: ${stream.product} is not enabled for this account (403 on ${asked}); runs report it and go on; enable ${stream.product}, or remove "${stream.name}" from the account's streams`,
      ];
    }
    return [
      "fail",
      `the key lacks the permission ${stream.permission} (403 on ${asked}); grant ${stream.permission} to the key, or remove "${stream.name}" from the account's streams`,
    ];
  }
  if (error instanceof AuthError) return ["fail", describeError(error)];
  const status = error instanceof SliceError ? error.context.status : undefined;
  if (probe.notFoundIsOk && (status === 400 || status === 422)) {
    // The platform checks the key's permission before it reads the id: it refused the id, not the key.
    return [
      "ok",
      `${asked} answered ${status} for a made-up id, past the permission check (${stream.permission})`,
    ];
  }
  if (isTransient(error)) return ["unknown", `${describeError(error)}; try again`];
  return ["warn", `${describeError(error)}`];
}

/** The clock item: the platform's `Date` header against this run's clock. */
function clockItem(
  dates: readonly { readonly header: IncomingHttpHeaders["date"]; readonly receivedAt: number }[],
  runNow: (at: number) => number,
  missingClockMarginHours: number,
  add: (item: string, status: CheckStatus, detail: string) => void,
): void {
  if (dates.length === 0) return;
  const reading = dates
    .map((d) => ({ platformMs: parseDateHeader(d.header), receivedAt: d.receivedAt }))
    .find((d) => d.platformMs !== undefined);
  if (reading?.platformMs === undefined) {
    add(
      "clock",
      "warn",
      `the platform sends no Date header, so only this machine's clock says when a read was made: windows settle ${missingClockMarginHours} h later (missing_clock_margin_hours)`,
    );
    return;
  }
  // The Date header has whole seconds: up to a second of skew is its rounding.
  const skew = reading.platformMs - runNow(reading.receivedAt);
  const seconds = Math.round(Math.abs(skew) / 1000);
  const side = skew > 0 ? "ahead of" : "behind";
  if (Math.abs(skew) <= SKEW_WARN_MS) {
    add("clock", "ok", `the platform's clock is within ${Math.max(1, seconds)} s of this run's`);
    return;
  }
  add(
    "clock",
    "warn",
    `the platform's clock is ${Math.round(seconds / 60)} min ${side} this run's (this machine's, or TELECOM_ETL_NOW): a window settles only once read after its end by both clocks; fix the machine's clock (NTP) or TELECOM_ETL_NOW`,
  );
}
