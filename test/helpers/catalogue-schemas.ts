import type { Pagination } from "@telecom-etl/platform/common.js";
import { answerSchema, type PlatformResource, publishedSchema } from "@telecom-etl/platform/resource.js";
import type { z } from "zod";

/**
 * The catalogue's envelope schemas (`publishedSchema`, `answerSchema` of `packages/platform/src/resource.ts`)
 * with the types of what they parse, for tests that read the parsed body. The schemas themselves
 * are the catalogue's, unchanged: only their static types are computed here from the entry's
 * literal envelope and item schema.
 */

type Item<R extends PlatformResource> = z.infer<R["item"]>;
type Envelope<R extends PlatformResource> = R["envelope"];

/** The values of an envelope's `extra` members. */
type ExtraOf<E> = E extends { readonly extra: infer X extends Readonly<Record<string, z.ZodType>> }
  ? { [K in keyof X]: z.infer<X[K]> }
  : unknown;

/** The rows member of a paged envelope: `null` too when it is nullable. */
type PagedRows<E, Row> = E extends { readonly nullable: true } ? Row[] | null : Row[];

/** A paged envelope's body, with rows of type `Row`; `loose` for a loader's reading (extras and, with `is_empty`, rows and pagination optional). */
type PagedBody<E, Row, Loose extends boolean> = E extends { readonly items: infer K extends string }
  ? Loose extends true
    ? E extends { readonly emptyFlag: true }
      ? { is_empty: boolean; pagination?: Pagination } & { [P in K]?: PagedRows<E, Row> } & Partial<
            ExtraOf<E>
          >
      : { pagination: Pagination } & { [P in K]: PagedRows<E, Row> } & Partial<ExtraOf<E>>
    : (E extends { readonly emptyFlag: true } ? { is_empty: boolean } : unknown) & {
        pagination: Pagination;
      } & { [P in K]: PagedRows<E, Row> } & ExtraOf<E>
  : never;

/** What a resource's body parses to: rows of type `Row`. */
type Body<R extends PlatformResource, Row, Loose extends boolean> =
  Envelope<R> extends {
    readonly shape: "array";
  }
    ? Row[]
    : Envelope<R> extends { readonly shape: "object" }
      ? Loose extends true
        ? Record<string, unknown>
        : Row
      : Envelope<R> extends { readonly shape: "keyed"; readonly items: infer K extends string }
        ? { [P in K]: Row[] }
        : PagedBody<Envelope<R>, Row, Loose>;

/** A schema with what it parses to and, for an object envelope, its members (`shape`). */
export type TypedSchema<T> = z.ZodType<T> & { readonly shape: Readonly<Record<string, z.ZodType>> };

/** The envelope as the platform publishes it, rows typed by the resource's item schema. */
export function published<const R extends PlatformResource>(
  resource: R,
): TypedSchema<Body<R, Item<R>, false>> {
  return publishedSchema(resource) as TypedSchema<Body<R, Item<R>, false>>;
}

/** The envelope as a loader reads it (rows unknown, each checked on its own). */
export function answered<const R extends PlatformResource>(resource: R): TypedSchema<Body<R, unknown, true>> {
  return answerSchema(resource) as TypedSchema<Body<R, unknown, true>>;
}
