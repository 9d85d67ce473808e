/**
 * The identity of a platform row inside one request's answer, computed from the raw row as served:
 * for a stream whose table has a key, the key columns read through the stream's own column
 * declarations (so a CDR is the same call whether the platform calls it `call_id` or `uuid`); for
 * rows without an id, or a raw row whose key cannot be read (a malformed row), its whole content.
 * Rows are made distinct once, by this identity, while they are extracted; the load trusts it.
 */
import { createHash } from "node:crypto";
import { sourceTextOf } from "@telecom-etl/platform/exact-number.js";
import type { Implied } from "./columns.js";
import type { StreamDefinition } from "./stream-definition.js";

/** A function giving the identity of a raw row of `stream` (with the values its request implied). */
export function rowIdentityOf(stream: StreamDefinition): (raw: unknown, implied: Implied) => string {
  const key = stream.table.key;
  const keyColumns = key === null ? [] : stream.columns.filter((column) => key.includes(column.name));
  return (raw, implied) => {
    if (keyColumns.length > 0 && raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
      try {
        // The raw row is unchecked: a key reader meets it as it is, and any surprise means "no key".
        // An exact number of a raw row (a ledger line's int64 id) is its source text.
        const values = keyColumns.map((column) => sourceTextOf(column.read(raw as never, implied)));
        if (values.every((v) => typeof v === "string" || typeof v === "number")) {
          return `k:${JSON.stringify(values)}`;
        }
      } catch {
        // Fall through to the content.
      }
    }
    return `r:${createHash("sha1")
      .update(JSON.stringify(raw) ?? "undefined")
      .digest("base64")}`;
  };
}
