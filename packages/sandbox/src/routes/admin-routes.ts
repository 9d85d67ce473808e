import {
  booleanParam,
  errorResponse,
  json,
  jsonBody,
  notFound,
  ParamError,
  requireDate,
  type SandboxRequest,
  type SandboxResponse,
} from "../http/http-kit.js";
import { formatMicros } from "../money.js";
import { parseIsoDuration } from "../sandbox-clock.js";
import { DAY_MS } from "../sandbox-options.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import {
  lateCdrLines,
  malformedLines,
  TRUTH_STREAMS,
  type TruthQuery,
  type TruthStream,
  truthLines,
} from "../truth.js";
import { numberCatalogLines } from "../truth-snapshots.js";

function ndjson(lines: readonly string[]): SandboxResponse {
  return {
    status: 200,
    body: lines.length === 0 ? "" : `${lines.join("\n")}\n`,
    contentType: "application/x-ndjson",
  };
}

function truthQuery(runtime: SandboxRuntime, query: URLSearchParams): TruthQuery | SandboxResponse {
  const name = query.get("account");
  if (!name) throw new ParamError(400, "account");
  const account = runtime.account(name);
  if (!account) return notFound();
  const fromMs = query.has("from") ? requireDate(query, "from") : runtime.world.startMs;
  const toMs = query.has("to") ? requireDate(query, "to") : runtime.world.endMs - DAY_MS;
  return { account, fromMs, toMs, nowMs: runtime.clock.now() };
}

/** `GET /_sandbox/truth/number_catalog?country=1[&text_enabled_only=true]` (no account: the catalog is the platform's). */
function numberCatalog(runtime: SandboxRuntime, query: URLSearchParams): SandboxResponse {
  const country = query.get("country") ?? "";
  if (!/^\d+$/.test(country)) throw new ParamError(400, "country");
  const lines = numberCatalogLines(runtime, Number(country), booleanParam(query, "text_enabled_only", false));
  return lines === null ? notFound() : ndjson(lines);
}

function setClock(runtime: SandboxRuntime, request: SandboxRequest): SandboxResponse {
  const body = jsonBody(request);
  if (typeof body.now === "string") {
    const ms = Date.parse(body.now);
    if (Number.isNaN(ms)) throw new ParamError(400, "now");
    runtime.clock.set(ms);
  } else if (typeof body.advance === "string") {
    const ms = parseIsoDuration(body.advance);
    if (ms === null) throw new ParamError(400, "advance");
    runtime.clock.advance(ms);
  } else {
    throw new ParamError(400, "now");
  }
  runtime.calls.pump();
  return json(200, { now: new Date(runtime.clock.now()).toISOString(), real: runtime.clock.isReal });
}

/** `POST /_sandbox/faults`: `{"profile": "flaky"}` or a custom mix object (see fault-profile.ts). */
function swapFaults(runtime: SandboxRuntime, request: SandboxRequest): SandboxResponse {
  const body = jsonBody(request);
  const spec = typeof body.profile === "string" ? body.profile : body;
  try {
    return json(200, runtime.faults.swap(spec));
  } catch (error) {
    return errorResponse(422, (error as Error).message);
  }
}

function charges(runtime: SandboxRuntime, query: URLSearchParams): SandboxResponse {
  const account = runtime.account(query.get("account") ?? "");
  const month = query.get("month") ?? "";
  if (!account) throw new ParamError(400, "account");
  if (!runtime.invoices.invoices.some((i) => i.month === month)) throw new ParamError(400, "month");
  const c = runtime.invoices.monthCharges(account, month);
  return json(200, {
    account: account.name,
    month,
    calls: formatMicros(c.callMicros),
    forward_fees: formatMicros(c.forwardMicros),
    transcriptions: formatMicros(c.transcriptionMicros),
    validations: formatMicros(c.validationMicros),
    messages: formatMicros(c.messageMicros),
    number_fees: formatMicros(c.numberFeesMicros),
    total: formatMicros(c.totalMicros),
  });
}

/**
 * The admin API under `/_sandbox/` (no auth; not part of the platform). Returns null for paths it
 * does not own. Routes: world, clock, faults, stats, charges, truth/{stream}[/malformed], truth/cdrs/late.
 */
export function handleAdmin(
  runtime: SandboxRuntime,
  request: SandboxRequest,
  worldView: () => unknown,
): SandboxResponse | null {
  const path = request.path.replace(/\/+$/, "");
  const { method, query } = request;
  if (method === "GET" && path === "/_sandbox/world") return json(200, worldView());
  if (method === "POST" && path === "/_sandbox/clock") return setClock(runtime, request);
  if (method === "GET" && path === "/_sandbox/clock") {
    return json(200, { now: new Date(runtime.clock.now()).toISOString(), real: runtime.clock.isReal });
  }
  if (method === "GET" && path === "/_sandbox/stats") {
    return json(200, {
      ...runtime.stats.snapshot(),
      faults: runtime.faults.snapshot(),
      callbacks: runtime.calls.deliveries,
      cached_cdr_rows: runtime.cdrs.cachedRowCount,
      cached_messages: runtime.messages.cachedCount,
    });
  }
  if (method === "GET" && path === "/_sandbox/charges") return charges(runtime, query);
  if (method === "POST" && path === "/_sandbox/faults") return swapFaults(runtime, request);
  if (method === "GET" && path === "/_sandbox/faults") return json(200, runtime.faults.profile);
  const truth = /^\/_sandbox\/truth\/([a-z_]+)(\/late|\/malformed)?$/.exec(path);
  if (method === "GET" && truth) {
    const stream = truth[1] as TruthStream;
    if (!TRUTH_STREAMS.includes(stream)) return notFound();
    if (stream === "number_catalog") return truth[2] ? notFound() : numberCatalog(runtime, query);
    const parsed = truthQuery(runtime, query);
    if ("status" in parsed) return parsed;
    if (truth[2] === "/malformed") return ndjson(malformedLines(runtime, stream, parsed));
    if (truth[2]) return stream === "cdrs" ? ndjson(lateCdrLines(runtime, parsed)) : notFound();
    return ndjson(truthLines(runtime, stream, parsed));
  }
  if (path.startsWith("/_sandbox/")) return errorResponse(404, "Unknown admin route");
  return null;
}
