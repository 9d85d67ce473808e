import { API_REVISIONS, type ApiRevision } from "./api-revision.js";
import { CATALOGUE, type ResourceName } from "./catalogue.js";
import type { Permission, PermissionLevel, PermissionResource } from "./permission-names.js";

export {
  PERMISSION_LEVELS,
  PERMISSION_RESOURCES,
  type Permission,
  type PermissionLevel,
  type PermissionResource,
} from "./permission-names.js";

/**
 * Permission model of restricted API keys (platform-api.md "Authentication", platform-facts.md
 * "Permissions"): a level per resource, and the permission each route of the platform needs.
 */

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
 * The routes of platform-api.md (revision 2024) and of the 2026 revision that the catalogue does not
 * declare: writes, and reads the loader does not use (one CDR, one trunk, aliases). A route renamed
 * in 2026 (a path or only its parameter names) is listed once per revision.
 */
const OTHER_ROUTES = [
  { method: "POST", path: "/v1/api-keys", permission: "account:write", revisions: ["2024", "2026"] },
  { method: "PUT", path: "/v1/mydids/{id}", permission: "numbers:write", revisions: ["2024"] },
  { method: "PUT", path: "/v1/numbers/{id}", permission: "numbers:write", revisions: ["2026"] },
  { method: "PUT", path: "/v1/buy/cart", permission: "numbers:write", revisions: ["2024", "2026"] },
  { method: "POST", path: "/v1/calls", permission: "calls:write", revisions: ["2024", "2026"] },
  { method: "GET", path: "/v1/cdr/{uuid}", permission: "calls:read", revisions: ["2024"] },
  { method: "GET", path: "/v1/cdrs/{call_id}", permission: "calls:read", revisions: ["2026"] },
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
  {
    method: "GET",
    path: "/v1/recordings/{call_uuid}",
    permission: "recordings:read",
    revisions: ["2024"],
  },
  { method: "GET", path: "/v1/recordings/{call_id}", permission: "recordings:read", revisions: ["2026"] },
  {
    method: "DELETE",
    path: "/v1/calls/webhooks",
    permission: "webhooks:write",
    revisions: ["2024", "2026"],
  },
  { method: "GET", path: "/v1/trunks/{id}", permission: "trunks:read", revisions: ["2024", "2026"] },
  { method: "POST", path: "/v1/trunks", permission: "trunks:write", revisions: ["2024", "2026"] },
  {
    method: "PUT",
    path: "/v1/sub-organizations/{id}",
    permission: "subaccounts:write",
    revisions: ["2024", "2026"],
  },
  {
    method: "POST",
    path: "/v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge",
    permission: "campaigns:write",
    revisions: ["2024", "2026"],
  },
  { method: "POST", path: "/v2/webrtc/tokens", permission: "embeddable:write", revisions: ["2024", "2026"] },
] as const satisfies readonly PlatformRoute[];

/** The read route of every catalogue resource in revision `R`, typed by its path. */
type CatalogueRouteOf<R extends ApiRevision> = {
  [N in ResourceName]: {
    readonly method: "GET";
    readonly path: (typeof CATALOGUE)[N]["paths"][R];
    readonly permission: Permission;
    readonly revisions: readonly R[];
  };
}[ResourceName];

/** The read routes the catalogue declares, one per resource and revision (`packages/platform/src/catalogue.ts`). */
const CATALOGUE_ROUTES = API_REVISIONS.flatMap((revision) =>
  Object.values(CATALOGUE).map((resource) => ({
    method: "GET" as const,
    path: resource.paths[revision],
    permission: resource.permission,
    revisions: [revision],
  })),
) as readonly (CatalogueRouteOf<"2024"> | CatalogueRouteOf<"2026">)[];

/**
 * Every route of both revisions with the permission it needs: the catalogue's reads, then the
 * other routes. A call's transcription is read under its CDR (platform-facts.md "A call's
 * transcription"; the `.../transcriptions` alias is named for 2026 only); `/v1/speech-analytics/{id}`
 * is for uploaded audio.
 */
export const PLATFORM_ROUTES: readonly ((typeof CATALOGUE_ROUTES)[number] | (typeof OTHER_ROUTES)[number])[] =
  [...CATALOGUE_ROUTES, ...OTHER_ROUTES];

/** The routes that exist in `revision`. */
export function routesOf(revision: ApiRevision): readonly PlatformRoute[] {
  return PLATFORM_ROUTES.filter((route) => (route.revisions as readonly ApiRevision[]).includes(revision));
}

/** Whether a key with `levels` (absent resource = none) may use a route needing `permission`. */
export function hasPermission(
  levels: Readonly<Partial<Record<PermissionResource, PermissionLevel>>>,
  permission: Permission,
): boolean {
  const [resource, needed] = permission.split(":") as [PermissionResource, "read" | "write"];
  const level = levels[resource] ?? "none";
  return level === "write" || (level === "read" && needed === "read");
}
