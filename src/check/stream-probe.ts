/**
 * The one cheap request `telecom-etl check` sends to see whether an account's key may read a
 * stream. Derived from the stream's own definition (and so from the resource catalogue), never a
 * path written here: the first request the stream would send for today's window (a date-windowed
 * list), for everything (a whole list) or for its first discovery (the brands, a country's cities),
 * asking one row where the answer is paged; a lookup asks about an id that does not exist, which a
 * key with the permission gets a 404 for and a key without it a 403.
 */

import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { resourcePath } from "@telecom-etl/platform/resource.js";
import { type AccountConfig, sourcesOf } from "../config/config.js";
import type { Slice } from "../core/slices.js";
import { addDays } from "../core/utc-days.js";
import type { StreamAnswer, StreamDefinition } from "../streams/stream-definition.js";

/** The id a lookup probe asks about: no platform id looks like it, so a permitted key gets a 404. */
export const PROBE_ID = "telecom-etl-check-0";

/** One probe request and how its answer reads. */
export interface StreamProbe {
  readonly path: string;
  readonly query: Readonly<Record<string, string | number>>;
  readonly answer: StreamAnswer;
  /** A 404 means the key may read it (a lookup or a path filled with the probe id), not a missing list. */
  readonly notFoundIsOk: boolean;
}

/** The slice a probe reads: today's window, everything, or one made-up id. */
function probeSlice(stream: StreamDefinition, today: string): Slice {
  if (stream.slicing === "date_window")
    return { kind: "window", window: { start: today, end: addDays(today, 1) } };
  if (stream.slicing === "lookup") return { kind: "ids", items: [{ id: PROBE_ID, implied: {} }] };
  return { kind: "full" };
}

/** `page=1&per_page=1` for a paged answer: the probe reads one row. */
function oneRow(answer: StreamAnswer): Record<string, number> {
  return answer.kind === "pages" ? { page: 1, per_page: 1 } : {};
}

/** The probe of `stream` for `account` read with `revision`, on the UTC day `today`. */
export function streamProbe(
  stream: StreamDefinition,
  account: AccountConfig,
  revision: ApiRevision,
  today: string,
): StreamProbe {
  const base = {
    account: account.name,
    revision,
    sources: sourcesOf(account),
    today,
    ...(account.subAccountOf === undefined ? {} : { subAccountId: account.subAccountOf.id }),
  };
  const discovery = stream.discovery?.requests(base)[0];
  if (discovery !== undefined && stream.discovery !== undefined) {
    const answer = stream.discovery.answer;
    return {
      path: discovery.path,
      query: { ...discovery.query, ...oneRow(answer) },
      answer,
      notFoundIsOk: false,
    };
  }
  const first = stream.requests(probeSlice(stream, today), { ...base, discovered: [] })[0];
  if (first !== undefined) {
    return {
      path: first.path,
      query: { ...first.query, ...oneRow(stream.answer) },
      answer: stream.answer,
      notFoundIsOk: stream.slicing === "lookup",
    };
  }
  // Nothing configured to read (no brand, no country): ask the resource under the probe id.
  const segments = stream.resource.paths[revision].match(/\{[a-z_]+\}/g)?.length ?? 0;
  return {
    path: resourcePath(
      stream.resource,
      revision,
      Array.from({ length: segments }, () => PROBE_ID),
    ),
    query: oneRow(stream.answer),
    answer: stream.answer,
    notFoundIsOk: true,
  };
}
