import { z } from "zod";
import type { ApiRevision } from "./api-revision.js";
import { type Pagination, paginationSchema } from "./common.js";
import type { Permission } from "./permission-names.js";

/**
 * What the platform answers for one resource, declared once: the catalogue's entries
 * (`packages/platform/src/catalogue.ts`) are of this type, and the loader's envelope schemas, the sandbox's
 * published shapes, the routes' permissions and the window parameters are derived from them.
 */

/** How a resource is read. */
export const RESOURCE_KINDS = ["windowed_list", "whole_list", "per_parent_list", "lookup"] as const;
/**
 * `windowed_list`: a paged list asked per date window (CDRs, messages, the ledger);
 * `whole_list`: every row on every read (owned numbers, trunks, invoices);
 * `per_parent_list`: a list under another resource's id (a brand's appeals, a city's numbers);
 * `lookup`: one object per id (a call's transcription, a validation).
 */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/**
 * The envelope around a resource's rows. `paged`: `{"<items>": [...], ...extra, "pagination": {...}}`;
 * `keyed`: `{"<items>": [...]}` holding every row, no pagination; `array`: a bare JSON array of every
 * row; `object`: one row, the body itself.
 */
export type Envelope =
  | {
      readonly shape: "paged";
      /** The member holding the page's rows. */
      readonly items: string;
      /** The rows may be `null` (read as an empty page): the trunk and recording lists. */
      readonly nullable?: boolean;
      /** `"is_empty": true` marks an empty list, whatever `items` and `pagination` hold then (invoices, ledger). */
      readonly emptyFlag?: boolean;
      /** Other members of the published envelope (`doc_types`, `invalid`): optional for a loader. */
      readonly extra?: Readonly<Record<string, z.ZodType>>;
    }
  | { readonly shape: "keyed"; readonly items: string }
  | { readonly shape: "array" }
  | { readonly shape: "object" };

/** How a date window is asked: parameter names and whether `to` names the window's last day or the day after. */
export interface WindowParameters {
  readonly from: string;
  readonly to: string;
  /** `last_day`: `to` is inclusive (`from=D&to=D` is one day); `day_after`: `to` is exclusive. */
  readonly toBound: "last_day" | "day_after";
}

/** One resource of the platform as the catalogue declares it. */
export interface PlatformResource<Item extends z.ZodType = z.ZodType> {
  readonly kind: ResourceKind;
  /** The path template of each revision; `{name}` segments are filled in order (same positions in both). */
  readonly paths: Readonly<Record<ApiRevision, string>>;
  readonly permission: Permission;
  readonly envelope: Envelope;
  /** One row as the platform publishes it (loose: unknown fields land in `_extra`). */
  readonly item: Item;
  /** Date-window parameters (`YYYY-MM-DD`), for a `windowed_list`. */
  readonly window?: WindowParameters;
  /** Fields whose JSON numbers must be read exactly, from their source text (the ledger's amounts). */
  readonly exactNumbers?: readonly string[];
  /**
   * One item as the platform documents it (valid for `item`; a unit test checks it): a scaffolded
   * list's fault tests corrupt it, and it shows a reader the shape.
   */
  readonly example?: Readonly<Record<string, unknown>>;
}

/**
 * The fields of an object item schema (`z.object`, `z.looseObject`), or undefined for any other:
 * what a scaffolded list derives its columns (`listStreamOf`) and its sandbox row faults from.
 */
export function itemShape(item: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  return item instanceof z.ZodObject ? (item.shape as Readonly<Record<string, z.ZodType>>) : undefined;
}

/** Declares a resource; its paths keep their literal types (the routes' types are derived from them). */
export function defineResource<const Resource extends PlatformResource>(resource: Resource): Resource {
  return resource;
}

/** The path of `resource` on `revision`, its `{name}` segments filled with `ids` in order (URI-encoded). */
export function resourcePath(
  resource: PlatformResource,
  revision: ApiRevision,
  ids: readonly string[] = [],
): string {
  let next = 0;
  const path = resource.paths[revision].replace(/\{[a-z_]+\}/g, (segment) => {
    const id = ids[next++];
    if (id === undefined) throw new Error(`${resource.paths[revision]}: no value for ${segment}`);
    return encodeURIComponent(id);
  });
  if (next !== ids.length)
    throw new Error(`${resource.paths[revision]}: ${ids.length} ids for ${next} segments`);
  return path;
}

/**
 * True when the resource's URLs differ between revisions (an `auto` account must ask which one it
 * talks to); a path whose segments are only named differently (`{uuid}` / `{request_id}`) is the same URL.
 */
export function isRevisionDependent(resource: PlatformResource): boolean {
  const url = (path: string) => path.replace(/\{[a-z_]+\}/g, "{}");
  return url(resource.paths["2024"]) !== url(resource.paths["2026"]);
}

/** The query asking for the days `start` (inclusive) to `end` (exclusive), `YYYY-MM-DD`, as the resource names them. */
export function windowQuery(
  resource: PlatformResource,
  window: { readonly start: string; readonly lastDay: string; readonly end: string },
): Record<string, string> {
  const parameters = resource.window;
  if (parameters === undefined) throw new Error(`${resource.paths["2024"]} is not asked by date window`);
  return {
    [parameters.from]: window.start,
    [parameters.to]: parameters.toBound === "last_day" ? window.lastDay : window.end,
  };
}

/**
 * The envelope as a loader reads it: rows stay `unknown` (each is checked on its own, so one bad
 * row is one reject), extra members are optional, and with an `is_empty` flag the rows and the
 * pagination may be missing when it is true.
 */
export function answerSchema(resource: PlatformResource): z.ZodType {
  const envelope = resource.envelope;
  switch (envelope.shape) {
    case "array":
      return z.array(z.unknown());
    case "object":
      return z.looseObject({});
    case "keyed":
      return z.looseObject({ [envelope.items]: z.array(z.unknown()) });
    case "paged": {
      const rows = envelope.nullable ? z.array(z.unknown()).nullable() : z.array(z.unknown());
      const extra = Object.fromEntries(
        Object.entries(envelope.extra ?? {}).map(([k, v]) => [k, v.optional()]),
      );
      if (!envelope.emptyFlag)
        return z.looseObject({ [envelope.items]: rows, ...extra, pagination: paginationSchema });
      return z
        .looseObject({
          is_empty: z.boolean(),
          [envelope.items]: rows.optional(),
          ...extra,
          pagination: paginationSchema.optional(),
        })
        .refine(
          (body) => body.is_empty || (body[envelope.items] !== undefined && body.pagination !== undefined),
          { message: `expected "${envelope.items}" and "pagination" unless is_empty is true` },
        );
    }
  }
}

/** The envelope as the platform publishes it, rows typed: what the sandbox serves and the contract tests check. */
export function publishedSchema(resource: PlatformResource): z.ZodType {
  const envelope = resource.envelope;
  const rows = z.array(resource.item);
  switch (envelope.shape) {
    case "array":
      return rows;
    case "object":
      return resource.item;
    case "keyed":
      return z.looseObject({ [envelope.items]: rows });
    case "paged":
      return z.looseObject({
        ...(envelope.emptyFlag ? { is_empty: z.boolean() } : {}),
        [envelope.items]: envelope.nullable ? rows.nullable() : rows,
        ...envelope.extra,
        pagination: paginationSchema,
      });
  }
}

/** The rows of an answer that passed {@link answerSchema}. */
export function rowsOf(resource: PlatformResource, body: unknown): readonly unknown[] {
  const envelope = resource.envelope;
  switch (envelope.shape) {
    case "array":
      return body as unknown[];
    case "object":
      return [body];
    case "keyed":
    case "paged": {
      const record = body as Record<string, unknown>;
      if (envelope.shape === "paged" && envelope.emptyFlag && record.is_empty === true) return [];
      return (record[envelope.items] as unknown[] | null | undefined) ?? [];
    }
  }
}

/** The pagination of a paged answer, or null for a valid empty answer that carries none (`is_empty`). */
export function paginationOfAnswer(body: unknown): Pagination | null {
  return ((body as { pagination?: Pagination }).pagination ?? null) as Pagination | null;
}
