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

/** One route of the platform and the permission it needs. */
export interface PlatformRoute {
  readonly method: HttpMethod;
  /** Path template with `{param}` segments. */
  readonly path: string;
  readonly permission: Permission;
}

/** Every route of platform-api.md with the permission it needs. */
export const PLATFORM_ROUTES = [
  { method: "POST", path: "/v1/api-keys", permission: "account:write" },
  { method: "PUT", path: "/v1/mydids/{id}", permission: "numbers:write" },
  { method: "GET", path: "/v1/buy/countries/{country}/cities", permission: "numbers:read" },
  { method: "GET", path: "/v1/buy/countries/{country}/cities/{city}/dids", permission: "numbers:read" },
  { method: "PUT", path: "/v1/buy/cart", permission: "numbers:write" },
  { method: "POST", path: "/v1/calls", permission: "calls:write" },
  { method: "GET", path: "/v1/cdr", permission: "calls:read" },
  { method: "GET", path: "/v1/cdr/{uuid}", permission: "calls:read" },
  { method: "GET", path: "/v1/calls/webhooks", permission: "webhooks:read" },
  { method: "DELETE", path: "/v1/calls/webhooks", permission: "webhooks:write" },
  { method: "POST", path: "/v1/trunks", permission: "trunks:write" },
  { method: "GET", path: "/v1/sub-organizations/{id}", permission: "subaccounts:read" },
  { method: "PUT", path: "/v1/sub-organizations/{id}", permission: "subaccounts:write" },
  { method: "GET", path: "/v1/short-links/metrics", permission: "campaigns:read" },
  { method: "GET", path: "/v1/validation/{uuid}", permission: "validator:read" },
  { method: "GET", path: "/v1/speech-analytics/{uuid}", permission: "calls:read" },
  { method: "GET", path: "/v3/10dlc/brands/{brand_id}/appeals", permission: "campaigns:read" },
  {
    method: "POST",
    path: "/v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge",
    permission: "campaigns:write",
  },
  { method: "GET", path: "/v1/billing/invoices", permission: "billing:read" },
  { method: "POST", path: "/v2/webrtc/tokens", permission: "embeddable:write" },
] as const satisfies readonly PlatformRoute[];

/** Permission needed by the three paths the loader's streams read. */
export const STREAM_PERMISSIONS = {
  cdrs: "calls:read",
  short_link_metrics: "campaigns:read",
  invoices: "billing:read",
  transcriptions: "calls:read",
  validations: "validator:read",
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
