/**
 * The names of the permission model of restricted API keys (platform-api.md "Authentication",
 * platform-facts.md "Permissions"): the resources a key assigns a level to, the levels, and a
 * route's permission. The routes and their permissions are in permissions.ts, which reads the
 * catalogue; the catalogue's resources name their permission from here.
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
