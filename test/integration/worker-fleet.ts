import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { type CliOptions, type CliResult, collect, spawnCli, stderrLine } from "../helpers/cli.js";

/** The environment variable that holds the key of the sandbox's account number `index` in a fleet's config. */
export function fleetKeyEnv(index: number): string {
  return `FLEET_TEST_KEY_${index}`;
}

/**
 * Where and with what environment a fleet's processes run: a temporary directory with a
 * `telecom-etl.yaml` naming every account of `sandbox` (each with `accountYaml`, indented lines
 * such as its rate, after its name, URL and key variable) followed by `yaml` (start date, streams,
 * distributed settings...), and an environment with the database, the run clock `now` and the keys.
 */
export async function fleetOptions(
  rig: { readonly sandbox: RunningSandbox; readonly db: { readonly url: string } },
  settings: { readonly accountYaml: string; readonly yaml: string; readonly now: string },
): Promise<{ env: Record<string, string>; cwd: string }> {
  const { sandbox, db } = rig;
  const cwd = await mkdtemp(path.join(tmpdir(), "telecom-etl-fleet-"));
  await chmod(cwd, 0o755);
  const accounts = sandbox.world.accounts.map(
    (a, i) =>
      `  - name: ${a.name}\n    base_url: ${sandbox.url}\n    api_key_env: ${fleetKeyEnv(i)}\n${settings.accountYaml}`,
  );
  await writeFile(path.join(cwd, "telecom-etl.yaml"), `accounts:\n${accounts.join("")}${settings.yaml}`);
  const env: Record<string, string> = { DATABASE_URL: db.url, TELECOM_ETL_NOW: settings.now };
  sandbox.world.accounts.forEach((a, i) => {
    env[fleetKeyEnv(i)] = a.apiKey;
  });
  return { env, cwd };
}

/** What `runWithKilledAndLateWorker` leaves: the coordinator's result, the workers' ends and pids. */
export interface FleetOutcome {
  /** The coordinating `run --distributed`. */
  readonly result: CliResult;
  /** The worker killed with SIGKILL after its first window, the one stopped with SIGTERM at the end, the late one. */
  readonly killed: CliResult;
  readonly stopped: CliResult;
  readonly late: CliResult;
  readonly killedPid: number;
  readonly latePid: number;
}

/**
 * A distributed run on a fleet that loses a worker: two `worker` processes start, a
 * `run --distributed` coordinates, the first worker is killed (SIGKILL) right after it loaded a
 * window (in the middle of its unit; `killAfter` picks the window by its log line) and a third
 * worker starts late. When the coordinator ends, the two live workers are stopped (SIGTERM); every
 * process's output is returned.
 */
export async function runWithKilledAndLateWorker(
  options: CliOptions,
  killAfter = /"msg":"window loaded"/,
): Promise<FleetOutcome> {
  const first = spawnCli(["worker"], options);
  const second = spawnCli(["worker"], options);
  const workersDone = [collect(first, 300_000), collect(second, 300_000)];
  await Promise.all([
    stderrLine(first, /"msg":"worker started/),
    stderrLine(second, /"msg":"worker started/),
  ]);
  const coordinated = collect(spawnCli(["run", "--distributed"], options), 300_000);
  await stderrLine(first, killAfter);
  first.kill("SIGKILL");
  const late = spawnCli(["worker"], options);
  const lateDone = collect(late, 300_000);
  const result = await coordinated;
  second.kill("SIGTERM");
  late.kill("SIGTERM");
  const [killed, stopped, lateResult] = await Promise.all([...workersDone, lateDone]);
  return {
    result,
    killed: killed!,
    stopped: stopped!,
    late: lateResult!,
    killedPid: first.pid!,
    latePid: late.pid!,
  };
}
