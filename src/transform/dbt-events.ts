/**
 * Reads what dbt printed with `--log-format json` (one JSON event a line) into what an operator
 * needs: the nodes that failed or warned, the counts line and dbt's own error when no node is to
 * blame (a project that does not parse, a database dbt cannot reach). Pure, so it is unit-tested
 * with recorded events.
 */

/** Node statuses dbt reports for a node that did not pass. */
const FAILED_STATUSES = ["error", "fail", "runtime error"] as const;

/** One node (model, test, source freshness, seed, snapshot) that failed or warned. */
export interface DbtNodeProblem {
  /** dbt's resource type: `model`, `test`, `source`, `unit_test`, `seed`, `snapshot`. */
  readonly resourceType: string;
  /** The node's name (a source as `source.table`). */
  readonly name: string;
  /** dbt's node status: `error`, `fail`, `runtime error`, `warn`. */
  readonly status: string;
  /** The first line of dbt's explanation (the database error, "Got 3 results, ..."), when it gave one. */
  readonly detail: string | undefined;
}

/** What a dbt invocation's events say. */
export interface DbtEventDigest {
  /** Human-readable text of every event, in order (what dbt would have printed as text). */
  readonly lines: readonly string[];
  readonly failures: readonly DbtNodeProblem[];
  readonly warnings: readonly DbtNodeProblem[];
  /**
   * The counts line without "Done.": `PASS=32 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=32`; for commands
   * that print none (`source freshness`), the same counts from the node results.
   */
  readonly summary: string;
  /** The first error-level message not tied to a node (why dbt stopped before or outside its nodes). */
  readonly generalError: string | undefined;
  /** dbt's selection matched no node ("Nothing to do."), so it did nothing (and exits 0). */
  readonly selectedNothing: boolean;
  /** dbt's id of this invocation (in its log and run_results.json), from the events' `info.invocation_id`. */
  readonly invocationId: string | undefined;
  /**
   * Why dbt parsed the whole project instead of reusing the parse it saved in its target folder
   * (its UnableToPartialParse event: "saved manifest not found. Starting full parse."); undefined
   * when it reused it.
   */
  readonly fullParse: string | undefined;
}

interface NodeInfo {
  readonly unique_id?: string;
  readonly node_name?: string;
  readonly node_status?: string;
  readonly resource_type?: string;
}

interface DbtEvent {
  readonly info?: {
    readonly name?: string;
    readonly level?: string;
    readonly msg?: string;
    readonly invocation_id?: string;
  };
  readonly data?: {
    readonly node_info?: NodeInfo;
    readonly source_name?: string;
    readonly table_name?: string;
    readonly status?: string;
    readonly reason?: string;
  };
}

function parseEvent(line: string): DbtEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as DbtEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** A result event names the node and its final status: LogModelResult, LogTestResult, LogFreshnessResult, ... */
function nodeResult(event: DbtEvent): { id: string; problem: DbtNodeProblem } | undefined {
  const name = event.info?.name ?? "";
  const node = event.data?.node_info;
  if (!/^Log\w*Result$/.test(name) || !node?.unique_id) return undefined;
  // node_status is the verdict (pass, fail, error, warn, ...); data.status is a model's adapter response ("SELECT 10").
  const status = node.node_status || event.data?.status || "";
  const resourceType = node.resource_type ?? node.unique_id.split(".")[0] ?? "node";
  const label =
    resourceType === "source" && event.data?.source_name
      ? `${event.data.source_name}.${event.data.table_name ?? node.node_name}`
      : (node.node_name ?? node.unique_id);
  return { id: node.unique_id, problem: { resourceType, name: label, status, detail: undefined } };
}

/** First meaningful line of a RunResultError message ("Database Error in model x (...)" is skipped). */
function firstDetailLine(msg: string): string | undefined {
  return msg
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "" && !/^(Database|Compilation|Runtime) Error in /.test(line));
}

/** A node dbt finished: the "N of M" dbt prints, from its result event's `index` and `total`. */
export interface DbtNodeProgress {
  readonly index: number;
  readonly total: number;
  readonly resourceType: string;
  readonly name: string;
  /** dbt's node status: `success`, `pass`, `fail`, `error`, `warn`, `skipped`, ... */
  readonly status: string;
}

/**
 * The progress one line of dbt's JSON output reports, when it is a node's result event
 * (LogModelResult, LogTestResult, LogFreshnessResult, ...: `data.index` of `data.total`, which a
 * test's result calls `num_models`); undefined for any other line.
 */
export function nodeProgressOf(line: string): DbtNodeProgress | undefined {
  const event = parseEvent(line) as
    | (DbtEvent & { data?: { index?: unknown; total?: unknown; num_models?: unknown } })
    | undefined;
  if (event === undefined) return undefined;
  const result = nodeResult(event);
  const index = event.data?.index;
  const total = event.data?.total ?? event.data?.num_models;
  if (result === undefined || typeof index !== "number" || typeof total !== "number") return undefined;
  return {
    index,
    total,
    resourceType: result.problem.resourceType,
    name: result.problem.name,
    status: result.problem.status,
  };
}

/** Digests dbt's JSON console output; lines that are not JSON events are kept as text. */
export function digestDbtEvents(rawLines: readonly string[]): DbtEventDigest {
  const lines: string[] = [];
  const problems = new Map<string, DbtNodeProblem>();
  const details = new Map<string, string>();
  let summary = "";
  let generalError: string | undefined;
  // dbt's command line rejects a bad flag or DBT_* variable before any event, in plain text.
  let commandLineError: string | undefined;
  let selectedNothing = false;
  let passed = 0;
  let invocationId: string | undefined;
  let fullParse: string | undefined;
  for (const raw of rawLines) {
    const event = parseEvent(raw);
    if (event === undefined) {
      if (raw.trim() !== "") lines.push(raw);
      if (commandLineError === undefined && /^Error: /.test(raw.trim())) commandLineError = raw.trim();
      continue;
    }
    const msg = event.info?.msg ?? "";
    invocationId ??= event.info?.invocation_id || undefined;
    if (msg.trim() !== "") lines.push(msg);
    if (/\bNothing to do\./.test(msg)) selectedNothing = true;
    if (event.info?.name === "UnableToPartialParse") fullParse ??= event.data?.reason || msg;
    if (msg.includes("PASS=")) summary = msg.replace(/^.*Done\.\s*/, "").trim();
    const result = nodeResult(event);
    if (result) {
      if (result.problem.status === "pass" || result.problem.status === "success") passed += 1;
      else problems.set(result.id, result.problem);
      continue;
    }
    const nodeId = event.data?.node_info?.unique_id;
    if (event.info?.name === "RunResultError" && nodeId && !details.has(nodeId)) {
      const detail = firstDetailLine(msg);
      if (detail) details.set(nodeId, detail);
    } else if (event.info?.level === "error" && !nodeId && generalError === undefined && msg.trim()) {
      generalError = msg.trim().split("\n")[0];
    }
  }
  const all = [...problems.entries()].map(([id, problem]) => ({ ...problem, detail: details.get(id) }));
  const isFailure = (p: DbtNodeProblem) => (FAILED_STATUSES as readonly string[]).includes(p.status);
  const failures = all.filter(isFailure);
  const warnings = all.filter((p) => !isFailure(p) && p.status !== "skipped" && p.status !== "no-op");
  const counted =
    passed + all.length > 0 ? `PASS=${passed} WARN=${warnings.length} ERROR=${failures.length}` : "";
  return {
    lines,
    failures,
    warnings,
    summary: summary || counted,
    generalError: generalError ?? commandLineError,
    selectedNothing: selectedNothing && summary === "",
    invocationId,
    fullParse,
  };
}

/** "test always_fails (Got 1 result, configured to fail if != 0)": a node and why, for one line. */
export function describeNodeProblem(problem: DbtNodeProblem): string {
  const what =
    problem.resourceType === "source" ? `source ${problem.name}` : `${problem.resourceType} ${problem.name}`;
  const why = problem.detail ?? (problem.resourceType === "source" ? "stale" : problem.status);
  return `${what} (${why})`;
}
