#!/usr/bin/env node
/**
 * `telecom-sandbox`: the sandbox's own program, without the loader. Same flags and defaults as the
 * loader's `telecom-etl sandbox` (src/cli/sandbox-command.ts): serves the seeded platform simulator
 * until Ctrl-C, printing its URL, each account's key and the admin URL. A refused flag is one line
 * on stderr and exit 2.
 */
import { parseArgs } from "node:util";
import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { resolveSandboxOptions, type SandboxOptions } from "./sandbox-options.js";
import { startSandbox } from "./start-sandbox.js";

const NUMBERS = {
  port: "4010",
  seed: "1",
  days: "90",
  accounts: "3",
  "calls-per-day": "2000",
  "latency-ms": "0",
  "rate-limit": "0",
  "max-per-page": "100",
  "late-share": "0.02",
  "clock-skew-ms": "0",
} as const;

const HELP = `usage: telecom-sandbox [--port 4010] [--host 127.0.0.1] [--seed 1] [--start YYYY-MM-DD] [--days 90]
  [--accounts 3] [--calls-per-day 2000] [--faults none|flaky|hostile|FILE.json] [--latency-ms 0]
  [--rate-limit 0] [--max-per-page 100] [--now ISO|real] [--late-share 0.02] [--shuffle]
  [--api-revision 2024|2026] [--drop-deprecated] [--clock-skew-ms 0] [--no-speech-analytics]
the flags of \`telecom-etl sandbox\` (docs/sandbox.md); Ctrl-C stops it`;

/** The sandbox's options from the command line (throws on an unknown flag). */
function optionsOf(args: readonly string[]): SandboxOptions | undefined {
  const numeric = Object.fromEntries(
    Object.entries(NUMBERS).map(([flag, value]) => [flag, { type: "string", default: value }]),
  ) as Record<keyof typeof NUMBERS, { type: "string"; default: string }>;
  const { values } = parseArgs({
    args: [...args],
    options: {
      ...numeric,
      host: { type: "string", default: "127.0.0.1" },
      start: { type: "string" },
      faults: { type: "string", default: "none" },
      now: { type: "string" },
      shuffle: { type: "boolean", default: false },
      "api-revision": { type: "string", default: "2024" },
      "drop-deprecated": { type: "boolean", default: false },
      "no-speech-analytics": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return undefined;
  const now = values.now ?? (values.start === undefined ? "real" : undefined);
  return {
    port: Number(values.port),
    host: values.host,
    seed: Number(values.seed),
    days: Number(values.days),
    accounts: Number(values.accounts),
    callsPerDay: Number(values["calls-per-day"]),
    faults: values.faults,
    latencyMs: Number(values["latency-ms"]),
    rateLimit: Number(values["rate-limit"]),
    maxPerPage: Number(values["max-per-page"]),
    lateShare: Number(values["late-share"]),
    shuffle: values.shuffle,
    apiRevision: values["api-revision"] as ApiRevision,
    dropDeprecated: values["drop-deprecated"],
    clockSkewMs: Number(values["clock-skew-ms"]),
    speechAnalytics: !values["no-speech-analytics"],
    ...(values.start === undefined ? {} : { start: values.start }),
    ...(now === undefined ? {} : { now }),
  };
}

/** Starts the sandbox, prints its banner, and stops it on the first SIGINT or SIGTERM. */
async function main(args: readonly string[]): Promise<void> {
  let options: SandboxOptions | undefined;
  try {
    options = optionsOf(args);
    if (options !== undefined) resolveSandboxOptions(options);
  } catch (error) {
    process.stderr.write(`telecom-sandbox: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  if (options === undefined) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const sandbox = await startSandbox(options);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`sandbox listening on ${sandbox.url}`);
  for (const account of sandbox.world.accounts)
    out(`  ${account.name.padEnd(8)} id ${account.id}  key ${account.apiKey}  (${account.companyName})`);
  out(`admin: ${sandbox.url}/_sandbox/world  (truth: ${sandbox.url}/_sandbox/truth/cdrs?account=master)`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await sandbox.close();
  out(`sandbox stopped (${signal})`);
}

await main(process.argv.slice(2));
