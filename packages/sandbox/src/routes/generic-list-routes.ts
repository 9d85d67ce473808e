import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import { notFound, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { optionalWindow, rejectReversed, requiredWindow } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { isListStream } from "../list-streams.js";
import { SANDBOX_LISTS, type SandboxListName } from "../sandbox-lists.js";
import type { SandboxAccount } from "../world.js";
import { visibleSubAccount } from "./account-routes.js";
import { catalogueHandlers, idAt, type PathId } from "./catalogue-routes.js";
import { listShapeOf, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** Whether a resource's path reads a sub-account's list (`/v1/sub-organizations/{id}/…`). */
function isSubAccountPath(path: string): boolean {
  return path.startsWith("/v1/sub-organizations/{id}/");
}

/**
 * The account whose list a request reads: the caller's own, or for a sub-account's list the
 * sub-account `{id}` names (400 when not a number, 404 when no such sub-account or when the caller
 * is neither the master nor that sub-account itself).
 */
function listAccount(
  context: RouteContext,
  name: SandboxListName,
  ids: readonly PathId[],
): SandboxAccount | null {
  if (!isSubAccountPath(CATALOGUE[name].paths["2024"])) return context.account;
  return visibleSubAccount(context, idAt(ids, 0).value);
}

/**
 * Serves list `name` from its declaration: the window under the catalogue's parameter names
 * (required or optional as the list says; 422 when malformed or reversed), paging, the list's own
 * filters, the catalogue's envelope, and the row faults of a list stream.
 */
function serveList(name: SandboxListName) {
  const resource: PlatformResource = CATALOGUE[name];
  const list = SANDBOX_LISTS[name];
  const parameters = resource.window;
  if (parameters === undefined) throw new Error(`sandbox list ${name}: the catalogue gives it no window`);
  return (context: RouteContext, ids: readonly PathId[]): SandboxResponse => {
    const { query } = context.request;
    const { runtime } = context;
    const account = listAccount(context, name, ids);
    if (account === null) return notFound();
    const window =
      list.window === "required" ? requiredWindow(query, parameters) : optionalWindow(query, parameters);
    rejectReversed(window, parameters);
    const paging = readPaging(query, runtime.options.maxPerPage);
    const nowMs = runtime.clock.now();
    const source = list.select({
      runtime,
      account,
      fromMs: window.fromMs,
      untilMs: window.untilMs,
      nowMs,
      query,
    });
    const shape = listShapeOf(resource, isListStream(name) ? name : null);
    return rawJson(200, servePage(context, shape, source, paging));
  };
}

/**
 * The routes of every `generic` list of `SANDBOX_LISTS`, both API revisions (paths from the
 * catalogue): a new date-windowed list needs no route file.
 */
export const genericListRoutes: readonly PlatformHandler[] = (Object.keys(SANDBOX_LISTS) as SandboxListName[])
  .filter((name) => SANDBOX_LISTS[name].route === "generic")
  .flatMap((name) => catalogueHandlers(CATALOGUE[name], serveList(name)));
