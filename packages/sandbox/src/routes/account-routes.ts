import { type ApiKey, createApiKeyRequestSchema } from "@telecom-etl/platform/api-key.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import {
  PERMISSION_RESOURCES,
  type PermissionLevel,
  type PermissionResource,
} from "@telecom-etl/platform/permissions.js";
import {
  SUB_ACCOUNT_STATUSES,
  type SubAccount,
  updateSubAccountRequestSchema,
} from "@telecom-etl/platform/sub-account.js";
import { json, notFound, ParamError, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { readPaging } from "../http/paging.js";
import { parseBody } from "../http/parse-body.js";
import { visibleSubAccounts } from "../truth-snapshots.js";
import type { SandboxAccount } from "../world.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { arraySource, listShapeOf, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

/** `POST /v1/api-keys`: unrestricted, or restricted with `permissions` per resource; optional IP allowlist. */
function createApiKey(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, createApiKeyRequestSchema);
  const isRestriction = body.is_restriction ?? false;
  if (isRestriction && body.permitted_ips === undefined) throw new ParamError(422, "permitted_ips");
  let permissions: Partial<Record<PermissionResource, PermissionLevel>> | null = null;
  if (body.permissions) {
    for (const resource of Object.keys(body.permissions)) {
      if (!(PERMISSION_RESOURCES as readonly string[]).includes(resource))
        throw new ParamError(422, "permissions");
    }
    permissions = body.permissions as Partial<Record<PermissionResource, PermissionLevel>>;
  }
  const key = context.runtime.keys.create(
    context.account,
    {
      label: body.label ?? "",
      isActive: body.is_active ?? true,
      isRestriction,
      permittedIps: body.permitted_ips ?? [],
      permissions,
    },
    context.runtime.clock.now(),
  );
  const answer: ApiKey = {
    id: key.id,
    label: key.label,
    value: key.value,
    is_active: key.isActive,
    is_restriction: key.isRestriction,
    permitted_ips: [...key.permittedIps],
    created_at: iso(key.createdAtMs),
  };
  return json(200, answer);
}

/**
 * The sub-account whose id is `raw` (a path's `{id}`) as the caller may see it: the master sees its
 * subs, a sub sees itself; null otherwise (a 404). Not a number: a 400 naming `id`.
 */
export function visibleSubAccount(
  context: Pick<RouteContext, "runtime" | "account">,
  raw: string,
): SandboxAccount | null {
  if (!/^\d+$/.test(raw)) throw new ParamError(400, "id");
  const target = context.runtime.world.accounts.find((a) => a.id === Number(raw) && a.role === "sub");
  if (!target) return null;
  if (context.account.role === "master" || context.account.index === target.index) return target;
  return null;
}

/** `GET /v1/sub-organizations/{id}`. */
function getSubAccount(context: RouteContext): SandboxResponse {
  const target = visibleSubAccount(context, context.params.id ?? "");
  return target ? json(200, context.runtime.state.subAccount(target)) : notFound();
}

/**
 * `GET /v1/sub-organizations?status=&page=&per_page=` (platform-facts.md "Sub-accounts"): the
 * sub-accounts the caller may read (the master: its subs; a sub: itself), by id, paged in
 * `{"sub_organizations": [...], "pagination"}`; `status` (`enabled`|`disabled`) filters.
 */
function listSubAccounts(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const status = context.request.query.get("status");
  if (status !== null && !(SUB_ACCOUNT_STATUSES as readonly string[]).includes(status)) {
    throw new ParamError(400, "status");
  }
  const rows = visibleSubAccounts(runtime, context.account)
    .map((sub) => runtime.state.subAccount(sub))
    .filter((sub) => status === null || sub.status === status)
    .map((sub) => ({ json: JSON.stringify(sub), day: 0, index: sub.id }));
  const paging = readPaging(context.request.query, runtime.options.maxPerPage);
  return rawJson(
    200,
    servePage(context, listShapeOf(CATALOGUE.sub_accounts, null), arraySource(rows), paging),
  );
}

/** `PUT /v1/sub-organizations/{id}`: name (required, <= 255), status, default_destinations. */
function updateSubAccount(context: RouteContext): SandboxResponse {
  const target = visibleSubAccount(context, context.params.id ?? "");
  if (!target) return notFound();
  const body = parseBody(context.request, updateSubAccountRequestSchema);
  const { state } = context.runtime;
  const current = state.subAccount(target);
  const next: SubAccount = {
    ...current,
    name: body.name,
    status: body.status ?? current.status,
    default_destinations: { ...current.default_destinations, ...body.default_destinations },
  };
  state.setSubAccount(target, next);
  return json(200, next);
}

/** API key and sub-account routes. */
export const accountRoutes: readonly PlatformHandler[] = [
  { method: "POST", path: "/v1/api-keys", handle: createApiKey },
  ...catalogueHandlers(CATALOGUE.sub_accounts, listSubAccounts),
  ...catalogueHandlers(CATALOGUE.sub_account, getSubAccount),
  { method: "PUT", path: "/v1/sub-organizations/{id}", handle: updateSubAccount },
];
