import { z } from "zod";
import { configFileSchema } from "../config/config.js";
import { settingMeta, unwrapped } from "../config/config-derive.js";

/** One setting of the config file as the reference lists it. */
interface SettingRow {
  readonly path: string;
  readonly type: string;
  readonly defaultText: string;
  readonly env: string | undefined;
}

/** What a record's keys are called: `stream` for the stream names, else `key`. */
function keyName(record: z.ZodRecord): string {
  const key = record.def.keyType as z.ZodType;
  return key.def.type === "enum" ? "stream" : "key";
}

/** A schema's type in a reader's words: `integer`, `URL`, `list of …`, `one of: a, b`. */
function typeText(schema: z.ZodType): string {
  const inner = unwrapped(schema) as z.ZodType & { format?: string | null };
  const def = inner.def as { type: string; entries?: Record<string, string>; options?: z.ZodType[] };
  if (inner instanceof z.ZodArray) return `list of ${typeText(inner.element as z.ZodType)}`;
  if (def.type === "enum") return `one of: ${Object.values(def.entries ?? {}).join(", ")}`;
  if (def.type === "union") return (def.options ?? []).map(typeText).join(" or ");
  if (inner instanceof z.ZodRecord)
    return `map of ${keyName(inner)} to ${typeText(inner.def.valueType as z.ZodType)}`;
  if (inner.format === "safeint") return "integer";
  if (inner.format === "url") return "URL";
  return def.type;
}

/** What the schema gives a setting that is left out: its default, else whether it may be absent. */
function defaultText(schema: z.ZodType): string {
  let wrapper: z.ZodType = schema;
  while (wrapper !== unwrapped(wrapper)) {
    const def = wrapper.def as { type: string; defaultValue?: unknown; innerType: z.ZodType };
    if (def.type === "default") return `\`${JSON.stringify(def.defaultValue)}\``;
    if (def.type === "prefault") return "each key's default";
    if (def.type === "optional" || def.type === "nullable") return "none (optional)";
    wrapper = def.innerType;
  }
  return "required";
}

/** Every setting below `schema` (its own row first), named as the docs name them: `accounts[].rate`. */
function settingRows(schema: z.ZodType, path: string): SettingRow[] {
  const inner = unwrapped(schema);
  const own: SettingRow = {
    path,
    type: typeText(schema),
    defaultText: defaultText(schema),
    env: settingMeta.get(schema)?.env,
  };
  const below =
    inner instanceof z.ZodObject
      ? Object.entries(inner.shape).flatMap(([key, field]) =>
          settingRows(field as z.ZodType, `${path}.${key}`),
        )
      : inner instanceof z.ZodArray && unwrapped(inner.element as z.ZodType) instanceof z.ZodObject
        ? settingRows(inner.element as z.ZodType, `${path}[]`).slice(1)
        : inner instanceof z.ZodRecord
          ? settingRows(inner.def.valueType as z.ZodType, `${path}.<${keyName(inner)}>`).slice(1)
          : [];
  return [own, ...below];
}

/** The table of every key of the config file's schema: type, default, environment variable. */
export function configurationReference(): string {
  const rows = Object.entries(configFileSchema.shape).flatMap(([key, field]) => settingRows(field, key));
  return [
    "| key | type | default | environment |",
    "|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| \`${row.path}\` | ${row.type.replaceAll("|", "\\|")} | ${row.defaultText} | ${row.env ? `\`${row.env}\`` : ""} |`,
    ),
  ].join("\n");
}
