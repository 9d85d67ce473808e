import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { type Command, InvalidArgumentError } from "commander";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import type { Runtime } from "./command-context.js";
import { withExample } from "./global-options.js";
import { loadSandbox, type SandboxModule } from "./sandbox-module.js";

interface SandboxFlags {
  readonly port: number;
  readonly host: string;
  readonly seed: number;
  readonly start?: string;
  readonly days: number;
  readonly accounts: number;
  readonly callsPerDay: number;
  readonly faults: string;
  readonly latencyMs: number;
  readonly rateLimit: number;
  readonly maxPerPage: number;
  readonly now?: string;
  readonly lateShare: number;
  readonly shuffle: boolean;
  readonly apiRevision: string;
  readonly dropDeprecated: boolean;
  readonly clockSkewMs: number;
  readonly speechAnalytics: boolean;
}

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a non-negative integer");
  return Number(value);
}

function signedInteger(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError("expected an integer (negative allowed)");
  return Number(value);
}

function number(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0)
    throw new InvalidArgumentError("expected a number >= 0");
  return parsed;
}

/** CLI flag of each library option, so a refused option is reported as the user typed it. */
const FLAGS: Readonly<Record<string, string>> = {
  port: "--port",
  host: "--host",
  seed: "--seed",
  start: "--start",
  days: "--days",
  accounts: "--accounts",
  callsPerDay: "--calls-per-day",
  faults: "--faults",
  latencyMs: "--latency-ms",
  rateLimit: "--rate-limit",
  maxPerPage: "--max-per-page",
  now: "--now",
  lateShare: "--late-share",
  apiRevision: "--api-revision",
  dropDeprecated: "--drop-deprecated",
  clockSkewMs: "--clock-skew-ms",
};

/** One line naming the flag: `sandbox: --late-share must be between 0 and 1`. */
function usageMessage(error: unknown): string {
  const text = (error as Error).message.replace(/\s+/g, " ").trim();
  const match = /^([a-zA-Z]+)(:?) /.exec(text);
  const flag = match ? FLAGS[match[1]!] : undefined;
  return `sandbox: ${flag && match ? `${flag}${match[2]} ${text.slice(match[0].length)}` : text}`;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/**
 * The sandbox's clock: `--now` when given; else, with `--start`, the end of that world (a past world
 * replayed as it was); else the machine's clock (`real`), so the world ends today and a run with
 * its own clock (no TELECOM_ETL_NOW) reads it as it would the platform (see docs/decisions/0090-the-sandbox-command-s-clock-follows-the-machine-s.md).
 */
function clockOf(flags: Pick<SandboxFlags, "now" | "start">): string | undefined {
  if (flags.now !== undefined) return flags.now;
  return flags.start === undefined ? "real" : undefined;
}

/** The sandbox's options from the command's flags; a value the sandbox refuses is a usage error naming the flag. */
function sandboxOptionsOf(flags: SandboxFlags, { resolveSandboxOptions }: SandboxModule): SandboxOptions {
  const options: SandboxOptions = {
    port: flags.port,
    host: flags.host,
    seed: flags.seed,
    days: flags.days,
    accounts: flags.accounts,
    callsPerDay: flags.callsPerDay,
    faults: flags.faults,
    latencyMs: flags.latencyMs,
    rateLimit: flags.rateLimit,
    maxPerPage: flags.maxPerPage,
    lateShare: flags.lateShare,
    shuffle: flags.shuffle,
    // Checked by resolveSandboxOptions below, which names the flag when the value is refused.
    apiRevision: flags.apiRevision as ApiRevision,
    dropDeprecated: flags.dropDeprecated,
    clockSkewMs: flags.clockSkewMs,
    speechAnalytics: flags.speechAnalytics,
    ...(flags.start === undefined ? {} : { start: flags.start }),
    ...(clockOf(flags) === undefined ? {} : { now: clockOf(flags) }),
  };
  try {
    resolveSandboxOptions(options);
  } catch (error) {
    throw new UsageError(usageMessage(error));
  }
  return options;
}

/** What a started sandbox prints: its URL, its world, each account's key and the admin URLs. */
function bannerOf(sandbox: RunningSandbox, flags: SandboxFlags): string[] {
  const { world } = sandbox;
  return [
    `sandbox listening on ${sandbox.url}`,
    `seed ${world.seed} · ${world.start} + ${world.days} days · ${world.callsPerDay} calls/day/account · ` +
      `API ${flags.apiRevision}${flags.dropDeprecated ? " (deprecated fields dropped)" : ""} · ` +
      `clock ${sandbox.runtime.clock.isReal ? "real" : new Date(sandbox.runtime.clock.now()).toISOString()}` +
      (flags.clockSkewMs === 0 ? "" : ` (Date headers ${flags.clockSkewMs} ms off)`),
    ...world.accounts.map(
      (account) =>
        `  ${account.name.padEnd(8)} id ${account.id}  key ${account.apiKey}  (${account.companyName})`,
    ),
    `admin: ${sandbox.url}/_sandbox/world  (truth: ${sandbox.url}/_sandbox/truth/cdrs?account=master)`,
  ];
}

/**
 * `telecom-etl sandbox`: serves the seeded platform simulator until Ctrl-C, printing its URL, keys
 * and admin URL. With the CLI `runtime`, Ctrl-C is a normal end (exit 0); without it, the entry
 * point reports an interruption (130).
 */
export function registerSandboxCommand(program: Command, runtime?: Runtime): void {
  const command = program
    .command("sandbox")
    .description("serve a seeded simulator of the platform API (with faults and ground truth) until Ctrl-C")
    .option("--port <n>", "TCP port (0 = any free port)", integer, 4010)
    .option("--host <addr>", "interface to listen on", "127.0.0.1")
    .option("--seed <n>", "world seed", integer, 1)
    .option("--start <date>", "first day of the world, YYYY-MM-DD (default: today - days + 1)")
    .option("--days <n>", "days of traffic", integer, 90)
    .option("--accounts <n>", "accounts: a master plus n-1 sub-accounts", integer, 3)
    .option("--calls-per-day <n>", "mean calls per account per day", integer, 2000)
    .option("--faults <profile>", "none | flaky | hostile | FILE.json", "none")
    .option("--latency-ms <n>", "added latency per request", integer, 0)
    .option("--rate-limit <rps>", "token-bucket limit per API key, requests/s (0 = off)", number, 0)
    .option("--max-per-page <n>", "largest per_page honoured", integer, 100)
    .option(
      "--now <iso|real>",
      "sandbox clock: ISO date-time or 'real' (default: real; with --start, the end of that world)",
    )
    .option("--late-share <x>", "share of CDRs that arrive 1-48 h late", number, 0.02)
    .option("--shuffle", "shuffle rows within each page", false)
    .option("--api-revision <rev>", "API revision served: 2024 (platform-api.md) or 2026", "2024")
    .option("--drop-deprecated", "2026 only: CDRs without the deprecated uuid and parent_uuid", false)
    .option("--clock-skew-ms <ms>", "added to the sandbox clock in every Date header", signedInteger, 0)
    .option("--no-speech-analytics", "speech analytics not provisioned: transcription routes answer 403")
    .action(async (flags: SandboxFlags) => {
      const sandboxModule = await loadSandbox();
      const options = sandboxOptionsOf(flags, sandboxModule);
      // Ctrl-C is how this command ends: the entry point then exits 0, not 130.
      runtime?.endsOnSignal();
      const sandbox = await sandboxModule.startSandbox(options).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EADDRINUSE" && error.code !== "EACCES" && error.code !== "EADDRNOTAVAIL")
          throw error;
        throw new UsageError(`sandbox: cannot listen on ${flags.host}:${flags.port} (${error.code})`);
      });
      const out = (line: string) => process.stdout.write(`${line}\n`);
      for (const line of bannerOf(sandbox, flags)) out(line);
      const signal = await untilSignal();
      await sandbox.close();
      out(`sandbox stopped (${signal})`);
      runtime?.setExitCode(EXIT.ok);
    });
  withExample(
    command,
    "telecom-etl sandbox --port 4010 --seed 1 --days 30",
    "telecom-etl sandbox --faults flaky --rate-limit 20 --now real",
    "telecom-etl sandbox --api-revision 2026 --drop-deprecated",
  );
}
