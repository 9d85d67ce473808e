/**
 * Where the metrics go: a file for node-exporter's textfile collector, written whole or not at all
 * (a temporary file in the same folder, then a rename, so the collector never reads half of it),
 * and/or a Prometheus Pushgateway (PUT: this run's metrics replace the previous run's group).
 */
import { rename, rm, writeFile } from "node:fs/promises";
import type { Secret } from "../core/secret.js";

/** The Pushgateway job the metrics are pushed under. */
export const PUSHGATEWAY_JOB = "telecom_etl";

/** Longest wait for the Pushgateway. */
export const PUSH_TIMEOUT_MS = 10_000;

/** Writes `text` to `file` atomically: a temporary sibling (not ending in .prom, so never collected), then a rename. */
export async function writeMetricsFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o644 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * PUTs `text` to the Pushgateway at `url` under job `telecom_etl` and instance `instance` (the
 * host): one group per host, replaced by each run. Throws naming the gateway's host only.
 */
export async function pushMetrics(url: Secret, text: string, instance: string): Promise<void> {
  const base = new URL(url.reveal());
  const host = base.host;
  const headers: Record<string, string> = { "content-type": "text/plain; version=0.0.4" };
  if (base.username !== "" || base.password !== "") {
    const credentials = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    base.username = "";
    base.password = "";
  }
  const path = `${base.pathname.replace(/\/+$/, "")}/metrics/job/${encodeURIComponent(PUSHGATEWAY_JOB)}/instance/${encodeURIComponent(instance)}`;
  const target = new URL(path, base);
  let response: Response;
  try {
    response = await fetch(target, {
      method: "PUT",
      headers,
      body: text,
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
  } catch (error) {
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`Pushgateway at ${host} not reached: ${reason}`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new Error(`Pushgateway at ${host} answered HTTP ${response.status}`);
}
