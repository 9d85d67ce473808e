import { type CliOptions, type CliResult, collect, spawnCli, stderrLine } from "../helpers/cli.js";

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
 * window (in the middle of its unit) and a third worker starts late. When the coordinator ends,
 * the two live workers are stopped (SIGTERM); every process's output is returned.
 */
export async function runWithKilledAndLateWorker(options: CliOptions): Promise<FleetOutcome> {
  const first = spawnCli(["worker"], options);
  const second = spawnCli(["worker"], options);
  const workersDone = [collect(first, 300_000), collect(second, 300_000)];
  await Promise.all([
    stderrLine(first, /"msg":"worker started/),
    stderrLine(second, /"msg":"worker started/),
  ]);
  const coordinated = collect(spawnCli(["run", "--distributed"], options), 300_000);
  await stderrLine(first, /"msg":"window loaded"/);
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
