import { readFileSync } from "node:fs";
import { z } from "zod";
import { type DriftRule, driftRuleSchema } from "./schema-drift.js";

/** Faults decided once per request (by route, request and attempt number). At most one applies. */
export const REQUEST_FAULTS = [
  "http429",
  "http429NoRetryAfter",
  "http500",
  "http502",
  "http503",
  "latencySpike",
  "hang",
  "reset",
  "truncated",
] as const;
/** A request-level fault. */
export type RequestFault = (typeof REQUEST_FAULTS)[number];

/** Faults of one page of a list (decided per request like request faults). */
export const PAGE_FAULTS = ["duplicateRow", "shortPage"] as const;
/** A page-level fault. */
export type PageFault = (typeof PAGE_FAULTS)[number];

/** Corruptions of one row, decided per (stream, account, day, row): a retry corrupts the same rows. */
export const ROW_FAULTS = ["wrongType", "missingField", "unknownEnum", "extraField"] as const;
/** A row-level fault. */
export type RowFault = (typeof ROW_FAULTS)[number];

/**
 * Row faults drawn each from a hash of their own, so adding one never changes which rows the
 * faults above hit. `nullCharge`: an answered, billed CDR served with `charge: null` (a value that
 * looks like data; the row stays valid).
 */
export const INDEPENDENT_ROW_FAULTS = ["nullCharge"] as const;
/** A row fault with its own draw. */
export type IndependentRowFault = (typeof INDEPENDENT_ROW_FAULTS)[number];

const rate = z.number().min(0).max(1);
const requestRates = z.object(Object.fromEntries(REQUEST_FAULTS.map((f) => [f, rate.optional()]))).strict();
const pageRates = z.object(Object.fromEntries(PAGE_FAULTS.map((f) => [f, rate.optional()]))).strict();
const rowRates = z
  .object(Object.fromEntries([...ROW_FAULTS, ...INDEPENDENT_ROW_FAULTS].map((f) => [f, rate.optional()])))
  .strict();

/** A custom fault mix (JSON file or `POST /_sandbox/faults` body); omitted values come from `base`. */
export const faultProfileInputSchema = z
  .object({
    base: z.enum(["none", "flaky", "hostile"]).optional(),
    seed: z.number().int().min(0).optional(),
    requests: requestRates.optional(),
    pages: pageRates.optional(),
    rows: rowRates.optional(),
    routes: z
      .record(
        z.string(),
        z.object({ requests: requestRates.optional(), pages: pageRates.optional() }).strict(),
      )
      .optional(),
    latencySpikeMs: z.number().int().min(0).optional(),
    hangMs: z.number().int().min(0).optional(),
    retryAfterSeconds: z.number().int().min(0).optional(),
    drift: z.array(driftRuleSchema).optional(),
  })
  .strict();
/** A custom fault mix as written in a file. */
export type FaultProfileInput = z.infer<typeof faultProfileInputSchema>;

/** A fully resolved fault profile: probabilities per request, page and row. */
export interface FaultProfile {
  readonly name: string;
  /** Seed of fault decisions (defaults to the world seed). */
  readonly seed: number | null;
  readonly requests: Readonly<Record<RequestFault, number>>;
  readonly pages: Readonly<Record<PageFault, number>>;
  readonly rows: Readonly<Record<RowFault | IndependentRowFault, number>>;
  /** Per-route overrides keyed `METHOD /path/template`, e.g. `GET /v1/cdr`. */
  readonly routes: Readonly<
    Record<
      string,
      {
        readonly requests: Readonly<Record<RequestFault, number>>;
        readonly pages: Readonly<Record<PageFault, number>>;
      }
    >
  >;
  readonly latencySpikeMs: number;
  readonly hangMs: number;
  readonly retryAfterSeconds: number;
  /** Schema drift applied to every row of a stream (see schema-drift.ts). */
  readonly drift: readonly DriftRule[];
}

const zeros = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** The built-in profiles. */
export const BUILT_IN_PROFILES: Readonly<Record<"none" | "flaky" | "hostile", FaultProfile>> = {
  none: {
    name: "none",
    seed: null,
    requests: zeros(REQUEST_FAULTS),
    pages: zeros(PAGE_FAULTS),
    rows: zeros([...ROW_FAULTS, ...INDEPENDENT_ROW_FAULTS]),
    routes: {},
    latencySpikeMs: 1500,
    hangMs: 90_000,
    retryAfterSeconds: 1,
    drift: [],
  },
  flaky: {
    name: "flaky",
    seed: null,
    requests: {
      http429: 0.03,
      http429NoRetryAfter: 0.01,
      http500: 0.01,
      http502: 0.01,
      http503: 0.01,
      latencySpike: 0.02,
      hang: 0,
      reset: 0.005,
      truncated: 0.005,
    },
    pages: { duplicateRow: 0.01, shortPage: 0.01 },
    rows: {
      wrongType: 0.0005,
      missingField: 0.0005,
      unknownEnum: 0.0005,
      extraField: 0.002,
      nullCharge: 0.001,
    },
    routes: {},
    latencySpikeMs: 1500,
    hangMs: 90_000,
    retryAfterSeconds: 1,
    drift: [],
  },
  hostile: {
    name: "hostile",
    seed: null,
    requests: {
      http429: 0.08,
      http429NoRetryAfter: 0.03,
      http500: 0.03,
      http502: 0.03,
      http503: 0.03,
      latencySpike: 0.05,
      hang: 0.005,
      reset: 0.02,
      truncated: 0.02,
    },
    pages: { duplicateRow: 0.04, shortPage: 0.04 },
    rows: { wrongType: 0.002, missingField: 0.002, unknownEnum: 0.002, extraField: 0.01, nullCharge: 0.003 },
    routes: {},
    latencySpikeMs: 3000,
    hangMs: 90_000,
    retryAfterSeconds: 2,
    drift: [],
  },
};

/** Applies a custom mix over its base profile. */
export function buildFaultProfile(input: FaultProfileInput, name = "custom"): FaultProfile {
  const base = BUILT_IN_PROFILES[input.base ?? "none"];
  const requests = { ...base.requests, ...input.requests } as Record<RequestFault, number>;
  const pages = { ...base.pages, ...input.pages } as Record<PageFault, number>;
  const routes: Record<string, FaultProfile["routes"][string]> = {};
  for (const [route, override] of Object.entries(input.routes ?? {})) {
    routes[route] = {
      requests: { ...requests, ...override.requests } as Record<RequestFault, number>,
      pages: { ...pages, ...override.pages } as Record<PageFault, number>,
    };
  }
  return {
    name,
    seed: input.seed ?? base.seed,
    requests,
    pages,
    rows: { ...base.rows, ...input.rows } as Record<RowFault | IndependentRowFault, number>,
    routes,
    latencySpikeMs: input.latencySpikeMs ?? base.latencySpikeMs,
    hangMs: input.hangMs ?? base.hangMs,
    retryAfterSeconds: input.retryAfterSeconds ?? base.retryAfterSeconds,
    drift: input.drift ?? base.drift,
  };
}

/** Resolves `none|flaky|hostile`, a JSON file path, or a profile object; throws with a readable message. */
export function resolveFaultProfile(spec: string | Readonly<Record<string, unknown>>): FaultProfile {
  if (typeof spec === "string" && spec in BUILT_IN_PROFILES) return BUILT_IN_PROFILES[spec as "none"];
  let raw: unknown = spec;
  if (typeof spec === "string") {
    try {
      raw = JSON.parse(readFileSync(spec, "utf8"));
    } catch (error) {
      const reason = (error as Error).message.replace(/\s+/g, " ").trim();
      throw new Error(`faults: expected none, flaky, hostile or a readable JSON file (${reason})`);
    }
  }
  const parsed = faultProfileInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`faults: ${issue?.path.join(".") || "profile"}: ${issue?.message ?? "invalid"}`);
  }
  return buildFaultProfile(parsed.data, typeof spec === "string" ? spec : "custom");
}
