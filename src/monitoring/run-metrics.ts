/**
 * The metrics of a loading command in Prometheus' text exposition format, rendered by prom-client's
 * registry: this run's figures per (account, stream) (rows, requests, 429s, rejects, failed and
 * held windows), the run's duration and exit code, and from the warehouse the last success and
 * the freshness of every (account, stream), and the unknown fields per stream. Every metric is a
 * gauge: a one-shot command's figures describe its run, not a counter's life.
 */
import type { StreamFreshness } from "../warehouse/state/stream-freshness.js";
import type { RunEnd } from "./run-end.js";

/** The prefix of every metric. */
export const METRIC_PREFIX = "telecom_etl_";

/** What the metrics are made of: the run's end, and what the warehouse says of every stream. */
export interface MetricsInput {
  readonly end: RunEnd;
  readonly freshness: readonly StreamFreshness[];
  /** Unknown fields recorded per stream (`etl.unknown_fields`). */
  readonly unknownFields: Readonly<Record<string, number>>;
  /** The instant freshness is measured at (epoch ms). */
  readonly now: number;
}

type StreamLabels = "account" | "stream";

/** Renders the metrics of one run (see the module comment). */
export async function renderRunMetrics(input: MetricsInput): Promise<string> {
  // Loaded here, not at the CLI's start: only a run with metrics configured renders them.
  const { Gauge, Registry } = await import("prom-client");
  const registry = new Registry();
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry] });
  const { end } = input;
  const command = { command: end.command };
  gauge("run_exit_code", "Exit code of the latest run of the command (see docs/reference/exit-codes.md)", [
    "command",
  ]).set(command, end.exitCode);
  gauge("run_duration_seconds", "Wall-clock duration of the latest run of the command", ["command"]).set(
    command,
    (end.endedAt - end.startedAt) / 1000,
  );
  gauge("run_end_timestamp_seconds", "When the latest run of the command ended (Unix time)", ["command"]).set(
    command,
    end.endedAt / 1000,
  );
  const perStream: readonly [
    string,
    string,
    (s: NonNullable<RunEnd["result"]>["streams"][number]) => number,
  ][] = [
    ["run_rows_fetched", "Rows the latest run read from the platform", (s) => s.rowsFetched],
    ["run_rows_loaded", "Rows the latest run inserted or updated", (s) => s.inserted + s.updated],
    ["run_rows_rejected", "Rows the latest run quarantined in etl.rejects", (s) => s.rejected],
    ["run_requests", "HTTP requests the latest run sent, retries included", (s) => s.requests],
    ["run_throttled_requests", "Requests of the latest run the platform answered 429", (s) => s.throttled],
    ["run_windows_failed", "Windows the latest run failed to load", (s) => s.windowsFailed],
    ["run_windows_held", "Windows the latest run read but held open (nothing written)", (s) => s.windowsHeld],
  ];
  for (const [name, help, pick] of perStream) {
    const metric = gauge<StreamLabels>(name, help, ["account", "stream"]);
    for (const s of end.result?.streams ?? []) metric.set({ account: s.account, stream: s.stream }, pick(s));
  }
  const success = gauge<StreamLabels>(
    "last_success_timestamp_seconds",
    "When a run last ended with the (account, stream) succeeded (Unix time)",
    ["account", "stream"],
  );
  const freshness = gauge<StreamLabels>(
    "freshness_seconds",
    "Seconds since a load of the (account, stream) last inserted, updated or deleted rows",
    ["account", "stream"],
  );
  for (const f of input.freshness) {
    const labels = { account: f.account, stream: f.stream };
    if (f.lastSuccessAt !== null) success.set(labels, f.lastSuccessAt.getTime() / 1000);
    if (f.lastChangeAt !== null)
      freshness.set(labels, Math.max(0, (input.now - f.lastChangeAt.getTime()) / 1000));
  }
  const unknown = gauge<"stream">(
    "unknown_fields",
    "Fields the platform sends that the loader's schema does not know (kept in _extra)",
    ["stream"],
  );
  for (const [stream, n] of Object.entries(input.unknownFields)) unknown.set({ stream }, n);
  const dbt = gauge<"step">("dbt_step_ok", "1 when the nightly's dbt step passed, 0 when it failed", [
    "step",
  ]);
  for (const step of end.dbtSteps) dbt.set({ step: step.step }, step.ok ? 1 : 0);
  return registry.metrics();
}
