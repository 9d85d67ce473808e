import {
  answerSchema,
  type PlatformResource,
  paginationOfAnswer,
  type ResourceKind,
  resourcePath,
  rowsOf,
  windowQuery,
} from "@telecom-etl/platform/resource.js";
import { lastDayOf, type Slice, windowOf } from "../core/slices.js";
import type { AnswerCheck, RequestContext, Slicing, StreamAnswer, StreamRequest } from "./stream-requests.js";

/**
 * How a stream reads its catalogue resource when its file says nothing more: the slicing of the
 * resource's kind, the answer its envelope gives, and the one request per slice of a plain list.
 */

/** The slicing of each resource kind. */
export const SLICING_OF_KIND: Readonly<Record<ResourceKind, Slicing>> = {
  windowed_list: "date_window",
  whole_list: "full_refresh",
  per_parent_list: "full_refresh",
  lookup: "lookup",
};

/**
 * A nullable list (`"sip_trunks": null`, `"recordings": null`) is read as no rows, and each such
 * page is counted under `null_list_read_as_empty` with a warning, so an operator sees it.
 */
function nullListCheck(items: string): AnswerCheck {
  return {
    name: "null_list_read_as_empty",
    description: `answer with "${items}": null, read as an empty list`,
    test: (body) => (body as Record<string, unknown>)[items] === null,
  };
}

/** How an answer of `resource` reads: pages of a paged envelope, else every row at once. */
export function answerOf(resource: PlatformResource): StreamAnswer {
  const envelope = answerSchema(resource);
  const rows = (body: unknown) => rowsOf(resource, body);
  if (resource.envelope.shape !== "paged") return { kind: "whole", envelope, rows };
  return {
    kind: "pages",
    envelope,
    rows,
    pagination: paginationOfAnswer,
    ...(resource.exactNumbers === undefined ? {} : { exactNumbers: resource.exactNumbers }),
    ...(resource.envelope.nullable ? { checks: [nullListCheck(resource.envelope.items)] } : {}),
  };
}

/**
 * The request of one slice of a plain list: a `windowed_list` asks its window (the catalogue's
 * parameter names, `to` inclusive or not), a `whole_list` asks everything. Other kinds name their
 * requests in the stream's file.
 */
export function listRequests(
  stream: string,
  resource: PlatformResource,
  slice: Slice,
  context: RequestContext,
): readonly StreamRequest[] {
  const path = resourcePath(resource, context.revision);
  if (resource.kind === "whole_list") return [{ path, query: {}, implied: {} }];
  if (resource.kind !== "windowed_list") {
    throw new Error(`stream ${stream} reads a ${resource.kind}: its file must say which requests it sends`);
  }
  return [{ path, query: windowRequestQuery(stream, resource, slice), implied: {} }];
}

/** The query asking for the date window of `slice` (which must be one) as `resource` names its parameters. */
export function windowRequestQuery(
  stream: string,
  resource: PlatformResource,
  slice: Slice,
): Record<string, string> {
  const window = windowOf(slice, stream);
  return windowQuery(resource, { start: window.start, lastDay: lastDayOf(window), end: window.end });
}
