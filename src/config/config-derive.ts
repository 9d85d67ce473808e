/**
 * What derives from the config file's zod schema, so that an ordinary setting is written once (in
 * src/config/config-file-schema.ts): the code's camelCase type and values, environment overrides, and the
 * file-shaped view `config show` prints. A setting's env var, secrecy and "unset" text are schema
 * metadata ({@link settingMeta}); its type and default are the schema's own.
 */
import { z } from "zod";

/** What the schema says of a setting besides its type and default. */
export interface SettingMeta {
  /** The environment variable that overrides the file (a list: comma-separated). */
  readonly env?: string;
  /** `config show` prints `*** (set)`, never the value (the code holds it as a `Secret`). */
  readonly secret?: true;
  /** What `config show` prints when the setting is unset (absent or null), e.g. `(none)`. */
  readonly unset?: string;
}

/** The settings' metadata, attached in the schema with `.register(settingMeta, {...})`. */
export const settingMeta = z.registry<SettingMeta>();

/**
 * Settings the code names otherwise than the camelCase of their YAML key. `no_worker_timeout` was
 * released without its unit; the code says it (`noWorkerTimeoutSeconds`).
 */
export const RENAMED = { no_worker_timeout: "noWorkerTimeoutSeconds" } as const;

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The code's name of the YAML key `K`. */
export type CodeName<K extends string> = K extends keyof typeof RENAMED ? (typeof RENAMED)[K] : CamelCase<K>;

/**
 * The code's shape of a file-shaped value: keys camelCased (or {@link RENAMED}), readonly, and
 * present (an optional setting is `T | undefined`, as zod parses an absent one).
 */
export type CamelCased<T> = T extends readonly (infer Element)[]
  ? readonly CamelCased<Element>[]
  : T extends object
    ? { readonly [K in keyof T & string as CodeName<K>]-?: CamelCased<T[K]> | Absent<T, K> }
    : T;

/** `undefined` when `K` is an optional key of `T` (a `-?` mapped type would drop it). */
type Absent<T, K extends keyof T> = object extends Pick<T, K> ? undefined : never;

/** `T` with the keys `K` optional (settings a config built in code may leave out). */
export type OptionalKeys<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** The code's name of a YAML key. */
export function codeName(key: string): string {
  return (
    (RENAMED as Record<string, string>)[key] ?? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
  );
}

/** The schema under its default, optional, nullable and prefault wrappers. */
export function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (
    inner instanceof z.ZodDefault ||
    inner instanceof z.ZodOptional ||
    inner instanceof z.ZodNullable ||
    inner instanceof z.ZodPrefault
  ) {
    inner = inner.def.innerType as z.ZodType;
  }
  return inner;
}

/**
 * `value` of `schema` with its object keys renamed at every depth: to the code's names
 * ({@link codeName}) from the file's, or back.
 */
function reshaped(schema: z.ZodType, value: unknown, to: "code" | "file"): unknown {
  if (value === undefined || value === null) return value;
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodObject) {
    const source = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(inner.shape).map(([key, field]) =>
        to === "code"
          ? [codeName(key), reshaped(field, source[key], to)]
          : [key, reshaped(field, source[codeName(key)], to)],
      ),
    );
  }
  if (inner instanceof z.ZodRecord) {
    const valueType = inner.def.valueType as z.ZodType;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, entry]) => [
        key,
        reshaped(valueType, entry, to),
      ]),
    );
  }
  if (inner instanceof z.ZodArray)
    return (value as unknown[]).map((entry) => reshaped(inner.element as z.ZodType, entry, to));
  return value;
}

/** A parsed value of `schema` in the code's shape: object keys renamed by {@link codeName}, at every depth. */
export function camelCased(schema: z.ZodType, value: unknown): unknown {
  return reshaped(schema, value, "code");
}

/** The inverse of {@link camelCased}: a value in the code's shape as the file writes it. */
export function fileShaped(schema: z.ZodType, value: unknown): unknown {
  return reshaped(schema, value, "file");
}

/**
 * The top-level settings the environment sets (a variable set to nothing sets nothing), typed by
 * the schema: a number is `Number(text)` (zod then says what is wrong), a list is comma-separated.
 */
export function envOverrides(schema: z.ZodObject, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const name = settingMeta.get(field)?.env;
    const text = name === undefined ? undefined : env[name];
    if (!text) continue;
    const inner = unwrapped(field);
    if (inner instanceof z.ZodNumber) overrides[key] = Number(text);
    else if (inner instanceof z.ZodArray) overrides[key] = text.split(",").map((item) => item.trim());
    else overrides[key] = text;
  }
  return overrides;
}

/**
 * A file-shaped value as `config show` prints it: an unset setting takes its default (`fallback`,
 * for configs built in code), else its `unset` text; a secret prints `*** (set)`.
 */
export function shownValue(schema: z.ZodType, value: unknown, fallback: unknown): unknown {
  const meta = settingMeta.get(schema);
  const given = value ?? fallback;
  if (given === undefined || given === null) return meta?.unset ?? given;
  if (meta?.secret) return "*** (set)";
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodObject) {
    const [file, defaults] = [given, fallback ?? {}] as Record<string, unknown>[];
    return Object.fromEntries(
      Object.entries(inner.shape).map(([key, field]) => [
        key,
        shownValue(field, file?.[key], defaults?.[key]),
      ]),
    );
  }
  if (inner instanceof z.ZodRecord) {
    const valueType = inner.def.valueType as z.ZodType;
    return Object.fromEntries(
      Object.entries(given as Record<string, unknown>).map(([key, entry]) => [
        key,
        shownValue(valueType, entry, undefined),
      ]),
    );
  }
  return given;
}
