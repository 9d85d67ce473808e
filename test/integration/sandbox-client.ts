import { createHash } from "node:crypto";
import { request } from "node:http";
import { type RunningSandbox, type SandboxOptions, startSandbox } from "@telecom-etl/sandbox";
import { test } from "vitest";

/**
 * Shared set-up of the sandbox test files added with API revision 2026: sandboxes started once per
 * file (a vitest fixture), and the few ways a test talks to them over real HTTP.
 */

/** An answer of the platform API: status, headers, raw text and parsed JSON (null when empty). */
export interface PlatformAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

/**
 * A `test` whose `sandboxes` fixture holds one running sandbox per entry of `options`, started
 * before the file's first test that asks for it and closed after its last.
 */
export function sandboxTest<Name extends string>(options: Readonly<Record<Name, SandboxOptions>>) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  return test.extend("sandboxes", { scope: "file" }, async ({}, { onCleanup }) => {
    const started = {} as Record<Name, RunningSandbox>;
    onCleanup(() => Promise.all(Object.values<RunningSandbox>(started).map((s) => s.close())).then(() => {}));
    for (const [name, config] of Object.entries<SandboxOptions>(options)) {
      started[name as Name] = await startSandbox(config);
    }
    return started;
  });
}

/** Calls the platform API as account `account` (index; master by default) or with an explicit `key`. */
export async function platform(
  sandbox: RunningSandbox,
  path: string,
  init: { method?: string; body?: unknown; key?: string | null; account?: number } = {},
): Promise<PlatformAnswer> {
  const key = init.key === undefined ? sandbox.world.accounts[init.account ?? 0]!.apiKey : init.key;
  const res = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      "content-type": "application/json",
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // A fault may serve a body that is not JSON; `text` has it.
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** An admin route as JSON (`POST` when `body` is given). */
export async function admin<T>(sandbox: RunningSandbox, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The lines of an NDJSON admin export (`/_sandbox/truth/...`), unparsed. */
export async function ndjsonLines(sandbox: RunningSandbox, path: string): Promise<string[]> {
  const res = await fetch(`${sandbox.url}${path}`);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.text()).split("\n").filter((line) => line !== "");
}

/** An NDJSON admin export, parsed. */
export async function ndjson<T = Record<string, unknown>>(
  sandbox: RunningSandbox,
  path: string,
): Promise<T[]> {
  return (await ndjsonLines(sandbox, path)).map((line) => JSON.parse(line) as T);
}

/** Every row of a CDR list request (`query` without paging) of account `account` (index), page by page. */
export function listAllCdrs(
  sandbox: RunningSandbox,
  listPath: string,
  query: string,
  account = 0,
): Promise<{ rows: Record<string, unknown>[]; pages: string[] }> {
  return listAllRows(sandbox, listPath, query, "items", account);
}

/** Every row of a paged list request (`query` without paging), its rows under `field`, page by page. */
export async function listAllRows(
  sandbox: RunningSandbox,
  listPath: string,
  query: string,
  field: string,
  account = 0,
): Promise<{ rows: Record<string, unknown>[]; pages: string[] }> {
  const rows: Record<string, unknown>[] = [];
  const pages: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, `${listPath}?${query}&per_page=100&page=${page}`, { account });
    if (answer.status !== 200) throw new Error(`${listPath}: HTTP ${answer.status} ${answer.text}`);
    pages.push(answer.text);
    const body = answer.body as Record<string, unknown> & { pagination: { total_pages: number } };
    rows.push(...((body[field] ?? []) as Record<string, unknown>[]));
    if (page >= body.pagination.total_pages) return { rows, pages };
  }
}

/**
 * What a client saw of one request, for byte-determinism checks: status, the headers a client acts
 * on and a digest of the body bytes; `reset` when the body broke off, `no answer` when none came.
 */
export function exchangeDigest(
  sandbox: RunningSandbox,
  step: { readonly method: string; readonly path: string; readonly body?: unknown; readonly admin?: boolean },
): Promise<string> {
  const payload = step.body === undefined ? undefined : JSON.stringify(step.body);
  return new Promise((resolve) => {
    const req = request(
      `${sandbox.url}${step.path}`,
      {
        method: step.method,
        agent: false,
        headers: {
          ...(step.admin ? {} : { authorization: `Bearer ${sandbox.world.accounts[0]!.apiKey}` }),
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        const head = `${res.statusCode} ${res.headers["content-type"]} ${res.headers["content-length"]} ${res.headers["retry-after"]}`;
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve(`${head} ${createHash("sha256").update(Buffer.concat(chunks)).digest("hex")}`),
        );
        res.on("error", () => resolve(`${head} reset`));
      },
    );
    req.on("error", () => resolve("no answer"));
    req.end(payload);
  });
}

/** A `/malformed` entry of the truth export: what the sandbox corrupted and whether a loader must reject it. */
export interface Malformed {
  readonly stream: string;
  readonly kind: string;
  readonly rejected: boolean;
  /** The row's id even when `raw` lost it (CDRs, messages). */
  readonly id?: string;
  readonly direction?: string;
  readonly raw: Record<string, unknown>;
}

/** Every CDR of `range` as served (both directions), with `direction` appended like the truth does. */
export async function servedCdrs(
  sandbox: RunningSandbox,
  listPath: string,
  range: string,
  account = 0,
): Promise<string[]> {
  const lines: string[] = [];
  for (const type of ["placed", "received"]) {
    const { rows } = await listAllCdrs(sandbox, listPath, `${range}&type=${type}`, account);
    for (const row of rows) lines.push(`${JSON.stringify(row).slice(0, -1)},"direction":"${type}"}`);
  }
  return lines;
}

/** How many times the sandbox injected the fault `kind` so far (`/_sandbox/stats`). */
export async function faultCount(sandbox: RunningSandbox, kind: string): Promise<number> {
  return (await admin<{ faults: Record<string, number> }>(sandbox, "/_sandbox/stats")).faults[kind] ?? 0;
}
