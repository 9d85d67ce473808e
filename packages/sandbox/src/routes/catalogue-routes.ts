import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import type { SandboxResponse } from "../http/http-kit.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** One `{name}` segment of a request's path: its name in the revision served, and its value. */
export interface PathId {
  readonly name: string;
  readonly value: string;
}

/** Handles a catalogue resource's GET, given its path's `{name}` segments in order. */
export type ResourceHandle = (
  context: RouteContext,
  ids: readonly PathId[],
) => SandboxResponse | Promise<SandboxResponse>;

const NO_ID: PathId = { name: "", value: "" };

/** The `position`-th id of a request's path (an empty one when the path has fewer). */
export function idAt(ids: readonly PathId[], position: number): PathId {
  return ids[position] ?? NO_ID;
}

/** The names of a path template's `{name}` segments, in order. */
function segmentNames(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1]!);
}

/**
 * The GET handlers of a catalogue resource: one per distinct path of its two API revisions (the
 * paths come from the catalogue, never restated here). `handle` gets the path's ids by position,
 * with the name each revision gives them (`{uuid}` in 2024, `{call_id}` in 2026).
 */
export function catalogueHandlers(
  resource: PlatformResource,
  handle: ResourceHandle,
  extra: Pick<PlatformHandler, "forbiddenExtra"> = {},
): PlatformHandler[] {
  const paths = [...new Set(Object.values(resource.paths))];
  return paths.map((path) => {
    const names = segmentNames(path);
    return {
      method: "GET",
      path,
      handle: (context: RouteContext) =>
        handle(
          context,
          names.map((name) => ({ name, value: context.params[name] ?? "" })),
        ),
      ...extra,
    };
  });
}
