/**
 * The same CDR backfill by two builds of the CLI, alternated on one machine, one sandbox and one
 * embedded Postgres (a fresh database per run): wall time, peak RSS (from /usr/bin/time), rows
 * loaded and the exit code, then the medians and the ratio old/new. This is how the load path is
 * compared with an older commit (build it in a worktree: `git worktree add /tmp/old <commit>`,
 * `npm ci && npm run build` there). Defaults are issue 33's world: 30 days x 20,000 calls/day, seed
 * 1, one account, 5000 req/s, 8 in flight. Usage:
 *   node dist/bench/backfill-builds.js --other /tmp/old [--rounds 3] [--days 30] [--calls-per-day 20000]
 * `--cpu-prof DIR` writes a V8 CPU profile of each run into DIR/this or DIR/other; `--only-this`
 * skips the other build (for profiling). `--warmups N` (default 1) first runs each build N times
 * uncounted: the first backfill on a fresh machine state (page cache, Postgres' catalogue, the
 * sandbox's days) was always `this` build's and ran ~10% slow, which biased the medians of a few
 * rounds against it.
 */
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import pg from "pg";
import { silentLogger } from "../src/core/log.js";
import { addDays } from "../src/core/utc-days.js";
import { startEmbeddedWarehouse } from "../src/warehouse/connection/embedded-postgres.js";
import { cpuSecondsOf, type ForkedSandbox, forkSandbox } from "./e2e-harness.js";
import { median } from "./median.js";

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    other: { type: "string" },
    rounds: { type: "string", default: "3" },
    days: { type: "string", default: "30" },
    "calls-per-day": { type: "string", default: "20000" },
    "cpu-prof": { type: "string" },
    "only-this": { type: "boolean", default: false },
    warmups: { type: "string", default: "1" },
  },
});
if (args.other === undefined) throw new Error("--other <checkout of the older build> is required");
const THIS_CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BUILDS = [
  { label: "this", checkout: THIS_CHECKOUT },
  { label: "other", checkout: path.resolve(args.other) },
] as const;
const DAYS = Number(args.days);

/** One backfill's figures. */
interface Timing {
  readonly seconds: number;
  readonly peakRssMb: number;
  readonly rows: number;
  readonly exitCode: number;
  /** CPU seconds used meanwhile by the loader, the sandbox and Postgres (all its processes). */
  readonly cpu: { readonly loader: number; readonly sandbox: number; readonly postgres: number };
}

/** A config both builds accept: one account, CDRs only, the rate. */
function configYaml(sandbox: ForkedSandbox): string {
  return [
    `start_date: "${sandbox.start}"`,
    "streams: [cdrs]",
    "accounts:",
    `  - name: ${sandbox.accounts[0]!.name}`,
    `    base_url: ${sandbox.url}`,
    "    api_key_env: BENCH_API_KEY",
    "    rate: { requests_per_second: 5000, burst: 200, concurrency: 8 }",
    "",
  ].join("\n");
}

/** `backfill --streams cdrs` over the world by the CLI of `checkout`, into a new database `database`. */
async function backfillOnce(
  checkout: string,
  admin: pg.Client,
  baseUrl: string,
  database: string,
  sandbox: ForkedSandbox,
  configFile: string,
): Promise<Timing> {
  await admin.query(`create database ${database}`);
  const env = {
    ...process.env,
    DATABASE_URL: `${baseUrl}/${database}`,
    BENCH_API_KEY: sandbox.accounts[0]!.apiKey,
  };
  const cli = path.join(checkout, "dist", "src", "cli", "bin.js");
  const profileDir =
    args["cpu-prof"] && path.join(args["cpu-prof"], checkout === THIS_CHECKOUT ? "this" : "other");
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const before = await otherCpu(sandbox);
  const command = [
    "-f",
    "%e %M %U %S",
    process.execPath,
    ...profile,
    cli,
    "--config",
    configFile,
    "backfill",
    "--streams",
    "cdrs",
  ];
  command.push("--from", sandbox.start, "--to", addDays(sandbox.start, DAYS - 1));
  const result = await run("/usr/bin/time", command, { env, cwd: checkout, maxBuffer: 64 << 20 }).then(
    (done) => ({ stderr: done.stderr, code: 0 }),
    (error: { stderr: string; code: number }) => ({ stderr: error.stderr, code: error.code }),
  );
  const after = await otherCpu(sandbox);
  const [seconds, rssKb, user, system] = result.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  const db = new pg.Client({ connectionString: `${baseUrl}/${database}` });
  await db.connect();
  const { rows } = await db.query<{ n: string }>("select count(*)::text as n from platform.cdrs");
  await db.end();
  await admin.query(`drop database ${database}`);
  const cpu = {
    loader: user! + system!,
    sandbox: after.sandbox - before.sandbox,
    postgres: after.postgres - before.postgres,
  };
  return {
    seconds: seconds!,
    peakRssMb: rssKb! / 1024,
    rows: Number(rows[0]!.n),
    exitCode: result.code,
    cpu,
  };
}

/** CPU seconds so far of the sandbox and of Postgres (the postmaster and the backends it reaped). */
async function otherCpu(sandbox: ForkedSandbox): Promise<{ sandbox: number; postgres: number }> {
  const postmaster = Number(
    (await readFile(path.join(dir, "pg", "data", "postmaster.pid"), "utf8")).split("\n")[0],
  );
  return { sandbox: await cpuSecondsOf(sandbox.pid), postgres: await cpuSecondsOf(postmaster) };
}

function describe(label: string, t: Timing): string {
  const rate = Math.round(t.rows / t.seconds).toLocaleString("en-US");
  const cpu = `CPU loader ${t.cpu.loader.toFixed(1)} s, sandbox ${t.cpu.sandbox.toFixed(1)} s, postgres ${t.cpu.postgres.toFixed(1)} s`;
  return `${label.padEnd(5)} ${t.seconds.toFixed(1)} s, ${t.rows.toLocaleString("en-US")} rows (${rate} rows/s), peak RSS ${t.peakRssMb.toFixed(0)} MB, ${cpu}, exit ${t.exitCode}`;
}

const sandbox = await forkSandbox({
  seed: 1,
  start: "2026-01-01",
  days: DAYS,
  accounts: 1,
  callsPerDay: Number(args["calls-per-day"]),
});
const dir = await mkdtemp(path.join(tmpdir(), "backfill-builds-"));
await chmod(dir, 0o755);
const embedded = await startEmbeddedWarehouse({ dir: path.join(dir, "pg"), log: silentLogger });
const baseUrl = embedded.url.slice(0, embedded.url.lastIndexOf("/"));
const admin = new pg.Client({ connectionString: embedded.url });
await admin.connect();
const configFile = path.join(dir, "telecom-etl.yaml");
await writeFile(configFile, configYaml(sandbox));
const timings: Record<string, Timing[]> = { this: [], other: [] };
/** The builds of round `round` in their order (alternated; only this one with `--only-this`). */
const buildsOfRound = (round: number) =>
  args["only-this"] ? BUILDS.slice(0, 1) : round % 2 === 0 ? BUILDS : [...BUILDS].reverse();
try {
  for (let warmup = 0; warmup < Number(args.warmups); warmup += 1) {
    for (const build of buildsOfRound(warmup)) {
      const db = `bench_${build.label}_warmup${warmup}`;
      const timing = await backfillOnce(build.checkout, admin, baseUrl, db, sandbox, configFile);
      console.log(`warm-up (not counted) ${describe(build.label, timing)}`);
    }
  }
  for (let round = 0; round < Number(args.rounds); round += 1) {
    for (const build of buildsOfRound(round)) {
      const db = `bench_${build.label}_${round}`;
      const timing = await backfillOnce(build.checkout, admin, baseUrl, db, sandbox, configFile);
      timings[build.label]!.push(timing);
      console.log(`round ${round + 1} ${describe(build.label, timing)}`);
    }
  }
} finally {
  await admin.end();
  await embedded.stop();
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
}
const medianOf = (label: string, pick: (t: Timing) => number) => median(timings[label]!.map(pick));
const [mine, theirs] = [medianOf("this", (t) => t.seconds), medianOf("other", (t) => t.seconds)];
console.log(
  `medians: this ${mine.toFixed(1)} s (${THIS_CHECKOUT}), other ${theirs.toFixed(1)} s (${BUILDS[1].checkout})`,
);
console.log(
  `other/this = ${(theirs / mine).toFixed(2)}x; peak RSS this ${medianOf("this", (t) => t.peakRssMb).toFixed(0)} MB, other ${medianOf("other", (t) => t.peakRssMb).toFixed(0)} MB`,
);
