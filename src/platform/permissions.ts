import type { ApiRevision } from "./api-revision.js";

/**
 * Permission model of restricted API keys (platform-api.md "Authentication", platform-facts.md
 * "Permissions"): a level per resource, and the permission each route of the platform needs.
 */

/** Resources to which a restricted key assigns a level. */
export const PERMISSION_RESOURCES = [
  "numbers",
  "trunks",
  "calls",
  "messages",
  "recordings",
  "campaigns",
  "two_fa",
  "validator",
  "webhooks",
  "embeddable",
  "billing",
  "account",
  "subaccounts",
] as const;
/** A permission resource. */
export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];

/** Levels of a restricted key per resource; `write` implies `read`. */
export const PERMISSION_LEVELS = ["none", "read", "write"] as const;
/** A permission level. */
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/** A permission a route needs, e.g. `calls:read`. */
export type Permission = `${PermissionResource}:${"read" | "write"}`;

/** HTTP methods the platform uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One route of the platform, the permission it needs and the API revisions it exists in. */
export interface PlatformRoute {
  readonly method: HttpMethod;
  /** Path template with `{param}` segments. */
  readonly path: string;
  readonly permission: Permission;
  readonly revisions: readonly ApiRevision[];
}

/**
 * Every route of platform-api.md (revision 2024) and of the 2026 revision, with the permission it
 * needs. A route renamed in 2026 (a path or only its parameter names) is listed once per revision.
 * A call's transcription is read under its CDR (platform-facts.md "A call's transcription"; the
 * `.../transcriptions` alias is named for 2026 only); `/v1/speech-analytics/{id}` is for uploaded audio.
 */
export const PLATFORM_ROUTES = [
  { method: "POST", path: "/v1/api-keys", permission: "account:write", revisions: ["2024", "2026"] },
  { method: "GET", path: "/v1/mydids", permission: "numbers:read", revisions: ["2024"] },
  { method: "GET", path: "/v1/numbers", permission: "numbers:read", revisions: ["2026"] },
  { method: "PUT", path: "/v1/mydids/{id}", permission: "numbers:write", revisions: ["2024"] },
  { method: "PUT", path: "/v1/numbers/{id}", permission: "numbers:write", revisions: ["2026"] },
  {
    method: "GET",
    path: "/v1/buy/countries/{country}/cities",
    permission: "numbers:read",
    revisions: ["2024"],
  },
  {
    method: "GET",
    path: "/v1/buy/countries/{country_id}/cities",
    permission: "numbers:read",
    revisions: ["2026"],
  },
  {
    method: "GET",
    path: "/v1/buy/countries/{country}/cities/{city}/dids",
    permission: "numbers:read",
    revisions: ["2024"],
  },
  {
    method: "GET",
    path: "/v1/buy/countries/{country_id}/cities/{city_id}/dids",
    permission: "numbers:read",
    revisions: ["2026"],
  },
  { method: "PUT", path: "/v1/buy/cart", permission: "numbers:write", revisions: ["2024", "2026"] },
  { method: "POST", path: "/v1/calls", permission: "calls:write", revisions: ["2024", "2026"] },
  { method: "GET", path: "/v1/cdr", permission: "calls:read", revisions: ["2024"] },
  { method: "GET", path: "/v1/cdrs", permission: "calls:read", revisions: ["2026"] },
  { method: "GET", path: "/v1/cdr/{uuid}", permission: "calls:read", revisions: ["2024"] },
  { method: "GET", path: "/v1/cdrs/{call_id}", permission: "calls:read", revisions: ["2026"] },
  {
    method: "GET",
    path: "/v1/cdr/{uuid}/transcription",
    permission: "calls:read",
    revisions: ["2024"],
  },
  {
    method: "GET",
    path: "/v1/cdrs/{call_id}/transcription",
    permission: "calls:read",
    revisions: ["2026"],
  },
  {
    method: "GET",
    path: "/v1/cdrs/{call_id}/transcriptions",
    permission: "calls:read",
    revisions: ["2026"],
  },
  {
    method: "POST",
    path: "/v1/cdrs/{call_id}/retranscribe",
    permission: "calls:write",
    revisions: ["2026"],
  },
  { method: "GET", path: "/v1/recordings", permission: "recordings:read", revisions: ["2024", "2026"] },
  {
    method: "GET",
    path: "/v1/recordings/{call_uuid}",
    permission: "recordings:read",
    revisions: ["2024"],
  },
  { method: "GET", path: "/v1/recordings/{call_id}", permission: "recordings:read", revisions: ["2026"] },
  { method: "GET", path: "/v1/calls/webhooks", permission: "webhooks:read", revisions: ["2024", "2026"] },
  {
    method: "DELETE",
    path: "/v1/calls/webhooks",
    permission: "webhooks:write",
    revisions: ["2024", "2026"],
  },
  { method: "GET", path: "/v1/trunks", permission: "trunks:read", revisions: ["2024", "2026"] },
  { method: "GET", path: "/v1/trunks/{id}", permission: "trunks:read", revisions: ["2024", "2026"] },
  { method: "POST", path: "/v1/trunks", permission: "trunks:write", revisions: ["2024", "2026"] },
  {
    method: "GET",
    path: "/v1/sub-organizations/{id}",
    permission: "subaccounts:read",
    revisions: ["2024", "2026"],
  },
  {
    method: "PUT",
    path: "/v1/sub-organizations/{id}",
    permission: "subaccounts:write",
    revisions: ["2024", "2026"],
  },
  {
    method: "GET",
    path: "/v1/short-links/metrics",
    permission: "campaigns:read",
    revisions: ["2024", "2026"],
  },
  { method: "GET", path: "/v1/validation/{uuid}", permission: "validator:read", revisions: ["2024"] },
  {
    method: "GET",
    path: "/v1/validation/{request_id}",
    permission: "validator:read",
    revisions: ["2026"],
  },
  { method: "GET", path: "/v1/speech-analytics/{uuid}", permission: "calls:read", revisions: ["2024"] },
  {
    method: "GET",
    path: "/v1/speech-analytics/{request_id}",
    permission: "calls:read",
    revisions: ["2026"],
  },
  { method: "GET", path: "/v3/10dlc/brands", permission: "campaigns:read", revisions: ["2024", "2026"] },
  {
    method: "GET",
    path: "/v3/10dlc/brands/{brand_id}/appeals",
    permission: "campaigns:read",
    revisions: ["2024", "2026"],
  },
  {
    method: "POST",
    path: "/v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge",
    permission: "campaigns:write",
    revisions: ["2024", "2026"],
  },
  { method: "GET", path: "/v3/messages", permission: "messages:read", revisions: ["2024", "2026"] },
  { method: "GET", path: "/v1/billing/invoices", permission: "billing:read", revisions: ["2024", "2026"] },
  {
    method: "GET",
    path: "/v1/billing/transactions",
    permission: "billing:read",
    revisions: ["2024", "2026"],
  },
  {
    method: "GET",
    path: "/v1/sub-organizations/{id}/billing/transactions",
    permission: "billing:read",
    revisions: ["2024", "2026"],
  },
  { method: "POST", path: "/v2/webrtc/tokens", permission: "embeddable:write", revisions: ["2024", "2026"] },
] as const satisfies readonly PlatformRoute[];

/** The routes that exist in `revision`. */
export function routesOf(revision: ApiRevision): readonly PlatformRoute[] {
  return PLATFORM_ROUTES.filter((route) => (route.revisions as readonly ApiRevision[]).includes(revision));
}

/**
 * Permission needed by the paths each of the loader's streams reads. `recordings` lists
 * `GET /v1/recordings` by date window (both revisions), `recordings:read`. `brand_appeals` lists brands
 * (`GET /v3/10dlc/brands`) and their appeals, both `campaigns:read`. `transactions` reads the
 * account's ledger and each sub-account's (`/v1/sub-organizations/{id}/billing/transactions`): the
 * facts name no permission for either, so both take `billing:read`, like invoices.
 */
export const STREAM_PERMISSIONS = {
  cdrs: "calls:read",
  short_link_metrics: "campaigns:read",
  invoices: "billing:read",
  transactions: "billing:read",
  transcriptions: "calls:read",
  recordings: "recordings:read",
  validations: "validator:read",
  messages: "messages:read",
  sip_trunks: "trunks:read",
  numbers: "numbers:read",
  number_catalog: "numbers:read",
  brand_appeals: "campaigns:read",
  call_webhooks: "webhooks:read",
  sub_accounts: "subaccounts:read",
} as const satisfies Record<string, Permission>;

/** Whether a key with `levels` (absent resource = none) may use a route needing `permission`. */
export function hasPermission(
  levels: Readonly<Partial<Record<PermissionResource, PermissionLevel>>>,
  permission: Permission,
): boolean {
  const [resource, needed] = permission.split(":") as [PermissionResource, "read" | "write"];
  const level = levels[resource] ?? "none";
  return level === "write" || (level === "read" && needed === "read");
}
