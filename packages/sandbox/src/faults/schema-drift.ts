import { z } from "zod";
import { LIST_STREAMS } from "../list-streams.js";
import { hash32 } from "../prng.js";

/**
 * Schema drift: a platform that renamed, dropped or retyped a field of a list stream. A drift rule
 * applies to every row of its stream (every account, every request) that carries the field; rows
 * without it are served unchanged. `add` is the one change that needs no field: the platform
 * starts sending a new one (a seeded value of `type` in every row). With `from`, a rule applies
 * only to rows dated that day or later (a new field, or a retyped one, from a release day on).
 */

/** How a field drifts: renamed to `to`, removed, sent as a string, sent as null, or added. */
export const DRIFT_CHANGES = ["rename", "remove", "stringify", "nullify", "add"] as const;
/** A drift change. */
export type DriftChange = (typeof DRIFT_CHANGES)[number];

/** JSON types an added field's values can have. */
export const ADDED_TYPES = ["string", "number", "boolean"] as const;

/** One drift rule of a fault profile (`drift` array of the JSON profile). */
export const driftRuleSchema = z
  .object({
    stream: z.enum(LIST_STREAMS),
    field: z.string().min(1),
    change: z.enum(DRIFT_CHANGES),
    to: z.string().min(1).optional(),
    type: z.enum(ADDED_TYPES).optional(),
    from: z.iso.date({ error: "expected a day YYYY-MM-DD" }).optional(),
  })
  .strict()
  .refine((rule) => (rule.change === "rename") === (rule.to !== undefined), {
    message: "a rename needs `to`, and only a rename takes it",
    path: ["to"],
  })
  .refine((rule) => (rule.change === "add") === (rule.type !== undefined), {
    message: "an add needs `type` (string, number or boolean), and only an add takes it",
    path: ["type"],
  });
/** A drift rule. */
export type DriftRule = z.infer<typeof driftRuleSchema>;

type Json = Record<string, unknown>;

/** The value sent as a string: numbers and booleans as their text, objects and arrays as JSON; null stays null. */
function stringified(value: unknown): unknown {
  if (value === null || typeof value === "string") return value;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The seeded value of an added field for a row (`salt` from the row's identity). */
export function addedValue(type: (typeof ADDED_TYPES)[number], salt: number): string | number | boolean {
  if (type === "number") return salt % 1000;
  if (type === "boolean") return salt % 2 === 0;
  return `v-${salt.toString(36)}`;
}

/**
 * Applies `rules` to one row (in place, a renamed field keeps its position and replaces a field of
 * the new name; an added field goes last, its value seeded by `salt`); returns true when the row changed.
 */
export function applyDrift(row: Json, rules: readonly DriftRule[], salt = 0): boolean {
  let changed = false;
  for (const rule of rules) {
    if (rule.change === "add") {
      row[rule.field] = addedValue(rule.type ?? "string", hash32(salt, rule.field));
      changed = true;
      continue;
    }
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
