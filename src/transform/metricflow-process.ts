/**
 * One long-lived MetricFlow process (dbt/python/metricflow_server.py, in dbt's Python environment):
 * it imports MetricFlow, loads the project and its semantic manifest and connects once, then
 * answers one JSON request a line on stdin with one JSON line on stdout. The start-up `mf query`
 * pays on every query (4–7 s) is paid once per process; a warm query is the query's own time.
 * Requests are answered in order, one at a time (the process is single-threaded).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { stripVTControlCharacters } from "node:util";

/** A request as the server reads it. */
export interface MetricflowRequest {
  readonly metrics: readonly string[];
  readonly groupBy?: readonly string[] | undefined;
  readonly where?: string | undefined;
  readonly order?: readonly string[] | undefined;
}

/** A server's reply: the answer's columns and rows, or why it refused. */
export type MetricflowReply =
  | { readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly error: string };

/** A running server: ask it, then close it. */
export interface MetricflowProcess {
  readonly ask: (request: MetricflowRequest) => Promise<MetricflowReply>;
  readonly close: () => Promise<void>;
}

/** How many lines of the server's stderr are kept for a message when it dies. */
const STDERR_LINES = 20;

/**
 * Starts the server (`python script`) in `cwd` with `env`; resolves once MetricFlow is loaded.
 * Rejects with the server's one-line reason when it cannot start (no project, no manifest).
 */
export async function startMetricflowProcess(options: {
  python: string;
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<MetricflowProcess> {
  const child = spawn(options.python, [options.script], { cwd: options.cwd, env: options.env });
  // A write after the process died fails with EPIPE: the pending read reports why it died.
  child.stdin.on("error", () => undefined);
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => {
    const text = stripVTControlCharacters(line).trim();
    if (text !== "") stderr.push(text);
    if (stderr.length > STDERR_LINES) stderr.shift();
  });
  const replies = replyQueue(child, () => stderr.slice(-3).join(" ") || "no output");
  const first = (await replies.next()) as { ready?: boolean; error?: string };
  if (first.ready !== true) {
    child.kill();
    throw new Error(first.error ?? "the MetricFlow server did not start");
  }
  let chain: Promise<unknown> = Promise.resolve();
  const ask = (request: MetricflowRequest): Promise<MetricflowReply> => {
    const answer = chain.then(() => {
      child.stdin.write(`${JSON.stringify(request)}\n`);
      return replies.next() as Promise<MetricflowReply>;
    });
    chain = answer.catch(() => undefined);
    return answer;
  };
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin.end();
    await exited;
  };
  return { ask, close };
}

/** The server's stdout as a queue of parsed lines; a read after the process ended rejects. */
function replyQueue(child: ChildProcessWithoutNullStreams, why: () => string) {
  const lines: unknown[] = [];
  const waiting: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  let ended: Error | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    // Only the server's JSON lines; anything a library prints to the descriptor itself is noise.
    if (!line.startsWith("{")) return;
    const value: unknown = JSON.parse(line);
    const next = waiting.shift();
    if (next) next.resolve(value);
    else lines.push(value);
  });
  const end = (error: Error) => {
    ended = error;
    for (const w of waiting.splice(0)) w.reject(error);
  };
  child.on("close", (code) => end(new Error(`the MetricFlow server ended (exit ${code}): ${why()}`)));
  child.on("error", (error) => end(new Error(`the MetricFlow server did not run: ${error.message}`)));
  return {
    next(): Promise<unknown> {
      if (lines.length > 0) return Promise.resolve(lines.shift());
      if (ended) return Promise.reject(ended);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}
