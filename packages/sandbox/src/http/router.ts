import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { type Permission, PLATFORM_ROUTES, routesOf } from "@telecom-etl/platform/permissions.js";
import type { PlatformHandler } from "../routes/route-types.js";

/** A compiled route. */
interface CompiledRoute {
  readonly handler: PlatformHandler;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly permission: Permission;
}

/** Result of matching a request against the platform routes. */
export type RouteMatch =
  | {
      readonly kind: "found";
      readonly handler: PlatformHandler;
      readonly params: Record<string, string>;
      readonly permission: Permission;
    }
  | { readonly kind: "not-found" }
  | { readonly kind: "method-not-allowed" };

/**
 * Matches method + path to the platform's handlers, serving only the routes of one API revision
 * (a route of the other revision is an unknown path: 404); permissions come from `PLATFORM_ROUTES`.
 */
export class Router {
  private readonly routes: CompiledRoute[];

  constructor(handlers: readonly PlatformHandler[], revision: ApiRevision) {
    for (const handler of handlers) {
      if (!PLATFORM_ROUTES.some((r) => r.method === handler.method && r.path === handler.path)) {
        throw new Error(`route ${handler.method} ${handler.path} is not in PLATFORM_ROUTES`);
      }
    }
    this.routes = routesOf(revision).map((contract) => {
      const handler = handlers.find((h) => h.method === contract.method && h.path === contract.path);
      if (!handler) throw new Error(`route ${contract.method} ${contract.path} has no handler`);
      const names: string[] = [];
      const source = handler.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
        names.push(name);
        return "([^/]+)";
      });
      return { handler, pattern: new RegExp(`^${source}/?$`), names, permission: contract.permission };
    });
  }

  /** Finds the handler of `method path`. */
  match(method: string, path: string): RouteMatch {
    let pathMatched = false;
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      pathMatched = true;
      if (route.handler.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(match[i + 1] ?? "");
      });
      return { kind: "found", handler: route.handler, params, permission: route.permission };
    }
    return pathMatched ? { kind: "method-not-allowed" } : { kind: "not-found" };
  }
}
