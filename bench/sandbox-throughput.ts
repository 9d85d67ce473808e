/**
 * `npm run bench:sandbox`: CDR rows the sandbox serves per second over HTTP (page size 100, no
 * faults, a few concurrent keep-alive clients; median of several rounds, each round reading fresh
 * days so generation is included), and the peak RSS of a 90-day x 20,000 calls/day world after
 * every day was generated. The sandbox runs in a child process so clients do not share its heap.
 * `-- --api-revision 2026 [--drop-deprecated]` measures the 2026 revision (`/v1/cdrs`, rows with
 * `call_id`) instead of 2024.
 */
import { type ChildProcess, fork } from "node:child_process";
import { Agent, get } from "node:http";
import { fileURLToPath } from "node:url";
import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { startSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { addDays } from "../src/core/utc-days.js";

const DAYS = 90;
const CALLS_PER_DAY = 20_000;
const CLIENTS = 6;
const ROUNDS = 5;
const WARMUP_ROUNDS = 3;
const DAYS_PER_ROUND = 3;
const PER_PAGE = 100;
const REVISION: ApiRevision = process.argv.includes("--api-revision")
  ? (process.argv[process.argv.indexOf("--api-revision") + 1] as ApiRevision)
  : "2024";
const DROP_DEPRECATED = process.argv.includes("--drop-deprecated");
const LIST_PATH = REVISION === "2026" ? "/v1/cdrs" : "/v1/cdr";

interface Ready {
  readonly url: string;
  readonly key: string;
  readonly start: string;
}

async function serve(): Promise<void> {
  const sandbox = await startSandbox({
    port: 0,
    seed: 1,
    days: DAYS,
    callsPerDay: CALLS_PER_DAY,
    accounts: 1,
    apiRevision: REVISION,
    dropDeprecated: DROP_DEPRECATED,
  });
  process.on("message", (message) => {
    if (message === "rss") process.send?.({ maxRssBytes: process.resourceUsage().maxRSS * 1024 });
    if (message === "stop") void sandbox.close().then(() => process.exit(0));
  });
  process.send?.({ url: sandbox.url, key: sandbox.world.accounts[0]!.apiKey, start: sandbox.world.start });
}

function ask<T>(child: ChildProcess, message?: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (reply) => resolve(reply as T));
    if (message) child.send(message);
  });
}

function fetchBody(agent: Agent, url: string, key: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`HTTP ${res.statusCode}`)),
      );
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** Every row of every revision carries exactly one of these. */
const ID_KEY = Buffer.from(REVISION === "2026" ? '"call_id":' : '"uuid":');

function countRows(body: Buffer): number {
  let rows = 0;
  for (let at = body.indexOf(ID_KEY); at >= 0; at = body.indexOf(ID_KEY, at + ID_KEY.length)) rows += 1;
  return rows;
}

/** Reads every page of `days` (both directions) with CLIENTS concurrent clients; returns rows/s. */
async function round(ready: Ready, agent: Agent, days: readonly string[]): Promise<number> {
  const started = performance.now();
  const windows = days.flatMap((day) =>
    ["placed", "received"].map((type) => `from=${day}&to=${day}&type=${type}`),
  );
  const base = `${ready.url}${LIST_PATH}?per_page=${PER_PAGE}&`;
  const firsts = await Promise.all(windows.map((w) => fetchBody(agent, `${base}${w}&page=1`, ready.key)));
  let rows = firsts.reduce((sum, body) => sum + countRows(body), 0);
  const queue: string[] = [];
  firsts.forEach((body, i) => {
    const totalPages = Number(
      /"total_pages":(\d+)/.exec(body.toString("latin1", body.length - 120))?.[1] ?? 0,
    );
    for (let page = 2; page <= totalPages; page++) queue.push(`${base}${windows[i]}&page=${page}`);
  });
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
        const body = await fetchBody(agent, url, ready.key);
        rows += countRows(body);
      }
    }),
  );
  return rows / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve", ...process.argv.slice(2)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await ask<Ready>(child);
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 4 });
  try {
    // Warm-up (JIT, sockets) on days the measured rounds do not read.
    for (let w = 1; w <= WARMUP_ROUNDS; w++) await round(ready, agent, [addDays(ready.start, DAYS - w)]);
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const days = Array.from({ length: DAYS_PER_ROUND }, (_, d) =>
        addDays(ready.start, r * DAYS_PER_ROUND + d),
      );
      rates.push(await round(ready, agent, days));
    }
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)]!;
    console.log(
      `sandbox CDR throughput (API ${REVISION}${DROP_DEPRECATED ? ", deprecated fields dropped" : ""}): ${Math.round(median).toLocaleString("en-US")} rows/s over HTTP ` +
        `(median of ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up rounds; per_page ${PER_PAGE}; ${CLIENTS} clients; rounds ${rates.map((x) => Math.round(x / 1000)).join("k, ")}k; target >= 150,000)`,
    );
    for (let d = 0; d < DAYS; d++) {
      await fetchBody(
        agent,
        `${ready.url}${LIST_PATH}?from=${addDays(ready.start, d)}&to=${addDays(ready.start, d)}&type=received`,
        ready.key,
      );
    }
    await fetchBody(agent, `${ready.url}/v1/billing/invoices`, ready.key);
    const { maxRssBytes } = await ask<{ maxRssBytes: number }>(child, "rss");
    console.log(
      `sandbox peak RSS: ${Math.round(maxRssBytes / 1_048_576)} MB after generating all ${DAYS} days x ${CALLS_PER_DAY.toLocaleString("en-US")} calls/day (target <= 300 MB)`,
    );
  } finally {
    agent.destroy();
    child.send("stop");
  }
}

if (process.argv[2] === "--serve") await serve();
else await main();
