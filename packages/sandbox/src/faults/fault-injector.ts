import type { ListStream } from "../list-streams.js";
import { unitHash } from "../prng.js";
import {
  type FaultProfile,
  PAGE_FAULTS,
  type PageFault,
  REQUEST_FAULTS,
  type RequestFault,
  resolveFaultProfile,
} from "./fault-profile.js";
import type { RowIdentity } from "./row-faults.js";
import { altersRows, type ServedRow, serveRow } from "./served-row.js";

/** The faults chosen for one request. */
export interface FaultDecision {
  readonly request: RequestFault | null;
  readonly page: PageFault | null;
  /** 1 for the first time this exact request (route, query, account) is seen, 2 for its first retry, ... */
  readonly attempt: number;
  /** A per-request number for fault details (how many rows a short page drops, where a body is cut). */
  readonly salt: number;
}

const NO_FAULT: FaultDecision = { request: null, page: null, attempt: 1, salt: 0 };
const MAX_TRACKED = 500_000;

function pick<K extends string>(keys: readonly K[], rates: Readonly<Record<K, number>>, u: number): K | null {
  let rest = u;
  for (const key of keys) {
    rest -= rates[key];
    if (rest < 0) return key;
  }
  return null;
}

/**
 * Decides faults per request. A decision depends on the fault seed, the route, the request's
 * signature (path, sorted query, account) and how many times that signature was seen before, so a
 * run that makes the same requests meets the same faults whatever the concurrency, and a retry of
 * a failed request is decided afresh.
 */
export class FaultInjector {
  private current: FaultProfile;
  private readonly attempts = new Map<string, number>();
  private readonly injected = new Map<string, number>();

  constructor(
    profile: FaultProfile,
    private readonly worldSeed: number,
  ) {
    this.current = profile;
  }

  /** The active profile. */
  get profile(): FaultProfile {
    return this.current;
  }

  /** Seed of every fault decision. */
  get seed(): number {
    return this.current.seed ?? this.worldSeed;
  }

  /** Whether the active profile changes rows of `stream` (corruptions, null charges, drift). */
  altersRows(stream: ListStream): boolean {
    return altersRows(this.current, stream);
  }

  /**
   * A list row as the platform serves it under the active profile: the same bytes on every route
   * that serves the row (its list, its lookup by id) and in the truth export, since the change
   * depends only on the row's identity. Counts nothing (see {@link countServed}).
   */
  serve(identity: RowIdentity, json: string): ServedRow {
    return this.altersRows(identity.stream)
      ? serveRow(this.current, this.seed, identity, json)
      : { json, change: null };
  }

  /** Counts a row a route served changed (`row:<change>` in the stats); the truth export does not count. */
  countServed(served: ServedRow): void {
    if (served.change !== null) this.count(`row:${served.change}`);
  }

  /** Swaps the profile at run time (attempt counters restart). */
  swap(spec: string | Readonly<Record<string, unknown>>): FaultProfile {
    this.current = resolveFaultProfile(spec);
    this.attempts.clear();
    return this.current;
  }

  /** The faults of one request on `route` (`METHOD /template`); `signatureOf` is only called when faults are on. */
  decide(route: string, signatureOf: () => string): FaultDecision {
    const rates = this.current.routes[route] ?? this.current;
    let any = false;
    for (const fault of REQUEST_FAULTS) any ||= rates.requests[fault] > 0;
    for (const fault of PAGE_FAULTS) any ||= rates.pages[fault] > 0;
    if (!any) return NO_FAULT;
    if (this.attempts.size >= MAX_TRACKED) this.attempts.clear();
    const signature = signatureOf();
    const attempt = (this.attempts.get(signature) ?? 0) + 1;
    this.attempts.set(signature, attempt);
    const request = pick(
      REQUEST_FAULTS,
      rates.requests,
      unitHash(this.seed, "request", route, signature, attempt),
    );
    // Decided independently of the request fault: a page fault spoils a page whenever one is
    // served (also under a latency spike or a damaged body), so its rate per served page is as set.
    const page = pick(PAGE_FAULTS, rates.pages, unitHash(this.seed, "page", route, signature, attempt));
    if (request) this.count(request);
    return {
      request,
      page,
      attempt,
      salt: Math.floor(unitHash(this.seed, "salt", signature, attempt) * 1e9),
    };
  }

  /** Counts an injected fault (page and row faults are counted where they are applied). */
  count(kind: string, n = 1): void {
    this.injected.set(kind, (this.injected.get(kind) ?? 0) + n);
  }

  /** Injected faults by kind, for `GET /_sandbox/stats`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.injected);
  }
}

/** The signature of a request: method, path, sorted query without credentials, and account. */
export function requestSignature(
  method: string,
  path: string,
  query: URLSearchParams,
  account: number,
): string {
  const params = [...query.entries()]
    .filter(([name]) => name !== "appid")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${method} ${path}?${new URLSearchParams(params).toString()}#${account}`;
}
