import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { nudgeRequestSchema, type TenDlcAppeal, type TenDlcBrand } from "@telecom-etl/platform/ten-dlc.js";
import { errorResponse, json, notFound, ParamError, type SandboxResponse } from "../http/http-kit.js";
import { parseBody } from "../http/parse-body.js";
import { hash32, Rng } from "../prng.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import type { SandboxAccount, SandboxBrand } from "../world.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

const CATEGORIES = [
  "VERIFY_TAX_ID",
  "VERIFY_NON_PROFIT",
  "VERIFY_GOVERNMENT",
  "VERIFY_PUBLIC_COMPANY",
] as const;
const NUDGE_INTERVAL_MS = 24 * 3_600_000;

function brandOf(context: RouteContext): SandboxBrand | undefined {
  return context.account.brands.find((b) => b.brandId === context.params.brand_id);
}

/** Seeded appeals of a brand that exist at `nowMs` (0 to 3). */
export function brandAppeals(
  seed: number,
  brand: SandboxBrand,
  startMs: number,
  nowMs: number,
): TenDlcAppeal[] {
  const rng = new Rng(hash32(seed, "appeals", brand.brandId));
  const appeals: TenDlcAppeal[] = [];
  const count = rng.int(0, 3);
  for (let i = 0; i < count; i++) {
    const createdMs = startMs + rng.int(0, 40) * 86_400_000 + rng.int(0, 86_399) * 1000;
    const updatedMs = createdMs + rng.int(1, 5) * 86_400_000;
    const verified = rng.chance(0.6);
    const appeal: TenDlcAppeal = {
      categories: [rng.pick(CATEGORIES)],
      created_at: new Date(createdMs).toISOString().slice(0, 19) + "Z",
      evidence: [`${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`],
      explanation: rng.pick([
        "Our EIN was entered with a typo; the corrected letter is attached.",
        "We are a registered non-profit; the IRS determination letter is attached.",
        "The brand name matches our DBA registration, attached.",
      ]),
      outcome: {
        optional_attributes: {},
        feedback: {
          category: verified ? [] : [{ id: "TAX_ID", description: "Tax ID could not be verified" }],
        },
        vetting_status: verified ? "VERIFIED" : "UNVERIFIED",
      },
      status: updatedMs <= nowMs ? rng.pick(["COMPLETE", "COMPLETED"]) : "PENDING",
      updated_at: new Date(Math.min(updatedMs, Math.max(createdMs, nowMs))).toISOString().slice(0, 19) + "Z",
    };
    if (createdMs <= nowMs) appeals.push(appeal);
  }
  return appeals;
}

/** The account's brands with their campaigns and review states, as `GET /v3/10dlc/brands` lists them. */
export function brandsOf(runtime: SandboxRuntime, account: SandboxAccount): TenDlcBrand[] {
  return account.brands.map((brand) => ({
    brand_id: brand.brandId,
    campaigns: brand.campaignIds.map((id) => ({ campaign_id: id, status: runtime.state.campaignStatus(id) })),
  }));
}

/**
 * `GET /v3/10dlc/brands` (a sandbox extension: the interface only shows brand ids as path
 * parameters): a bare array of the account's brands with their campaigns.
 */
function listBrands(context: RouteContext): SandboxResponse {
  return json(200, brandsOf(context.runtime, context.account));
}

/** `GET /v3/10dlc/brands/{brand_id}/appeals`: a bare array. */
function listAppeals(context: RouteContext): SandboxResponse {
  const brand = brandOf(context);
  if (!brand) return notFound();
  const { world, clock } = context.runtime;
  return json(200, brandAppeals(world.seed, brand, world.startMs, clock.now()));
}

/**
 * `POST /v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge`: REVIEW only for a PENDING
 * campaign, APPEAL_REJECTION only for a REJECTED one; at most one nudge per campaign per 24 h.
 */
function nudge(context: RouteContext): SandboxResponse {
  const brand = brandOf(context);
  const campaignId = context.params.campaign_id ?? "";
  if (!brand?.campaignIds.includes(campaignId)) return notFound();
  const body = parseBody(context.request, nudgeRequestSchema);
  const { state, clock } = context.runtime;
  const status = state.campaignStatus(campaignId);
  const allowed = body.nudge_intent === "REVIEW" ? status === "PENDING" : status === "REJECTED";
  if (!allowed) throw new ParamError(422, "nudge_intent");
  const nowMs = clock.now();
  const last = state.nudgedAtMs.get(campaignId);
  if (last !== undefined && nowMs - last < NUDGE_INTERVAL_MS) {
    return errorResponse(422, "Campaign was already nudged in the last 24 hours");
  }
  state.nudgedAtMs.set(campaignId, nowMs);
  return json(200, { success: true });
}

/** 10DLC routes. */
export const tenDlcRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CATALOGUE.ten_dlc_brands, listBrands),
  ...catalogueHandlers(CATALOGUE.brand_appeals, listAppeals),
  { method: "POST", path: "/v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge", handle: nudge },
];
