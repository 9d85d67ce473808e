import { z } from "zod";
import { LIST_STREAMS } from "../list-streams.js";

/**
 * Schema drift: a platform that renamed, dropped or retyped a field of a list stream. A drift rule
 * applies to every row of its stream (every account, every request) that carries the field; rows
 * without it are served unchanged.
 */

/** How a field drifts: renamed to `to`, removed, sent as a string, or sent as null. */
export const DRIFT_CHANGES = ["rename", "remove", "stringify", "nullify"] as const;
/** A drift change. */
export type DriftChange = (typeof DRIFT_CHANGES)[number];

/** One drift rule of a fault profile (`drift` array of the JSON profile). */
export const driftRuleSchema = z
  .object({
    stream: z.enum(LIST_STREAMS),
    field: z.string().min(1),
    change: z.enum(DRIFT_CHANGES),
    to: z.string().min(1).optional(),
  })
  .strict()
  .refine((rule) => (rule.change === "rename") === (rule.to !== undefined), {
    message: "a rename needs `to`, and only a rename takes it",
    path: ["to"],
  });
/** A drift rule. */
export type DriftRule = z.infer<typeof driftRuleSchema>;

type Json = Record<string, unknown>;

/** The value sent as a string: numbers and booleans as their text, objects and arrays as JSON; null stays null. */
function stringified(value: unknown): unknown {
  if (value === null || typeof value === "string") return value;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * Applies `rules` to one row (in place, a renamed field keeps its position and replaces a field of
 * the new name); returns true when the row changed.
 */
export function applyDrift(row: Json, rules: readonly DriftRule[]): boolean {
  let changed = false;
  for (const rule of rules) {
    if (!(rule.field in row)) continue;
    const value = row[rule.field];
    if (rule.change === "remove") {
      delete row[rule.field];
      changed = true;
    } else if (rule.change === "nullify" || rule.change === "stringify") {
      const next = rule.change === "nullify" ? null : stringified(value);
      if (next !== value) {
        row[rule.field] = next;
        changed = true;
      }
    } else if (rule.to !== rule.field) {
      const entries = Object.entries(row).filter(([key]) => key !== rule.to);
      for (const key of Object.keys(row)) delete row[key];
      for (const [key, entry] of entries) row[key === rule.field ? rule.to! : key] = entry;
      changed = true;
    }
  }
  return changed;
}
