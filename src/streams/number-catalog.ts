import { CATALOGUE, type PurchasableNumber, resourcePath } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { answerOf } from "./resource-reading.js";
import { defineStream, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<PurchasableNumber>();

/** The `text_enabled_only` filter as a query (absent when off). */
function textFilter(on: boolean): Readonly<Record<string, string>> {
  return on ? { text_enabled_only: "true" } : {};
}

/**
 * The columns of `platform.number_catalog`: the snapshot's day, the country and city it was listed
 * under (from the requests), and the number with its prices.
 */
export const NUMBER_CATALOG_COLUMNS = [
  c.required("snapshot_date", "date", (_row, implied) => implied.snapshot_date),
  c.required("country_id", "integer", (_row, implied) => implied.country_id),
  c.required("city_id", "integer", (_row, implied) => implied.city_id),
  c.required("city_name", "text", (_row, implied) => implied.city_name),
  c.required("number", "text", (row) => row.number),
  c.required("id", "bigint", (row) => row.id),
  c.required("activation_fee", "numeric", (row) => row.activation_fee),
  c.required("monthly_fee", "numeric", (row) => row.monthly_fee),
  c.required("per_min", "numeric", (row) => row.per_min),
  c.required("channels", "text", (row) => row.channels),
  c.required("city", "text", (row) => row.city),
  c.required("country", "text", (row) => row.country),
  c.required("country_short_name", "text", (row) => row.country_short_name),
  c.required("cnam", "boolean", (row) => row.cnam),
  c.required("domestic_cli", "boolean", (row) => row.domestic_cli),
  c.required("free_min", "integer", (row) => row.free_min),
  c.required("require_docs", "jsonb", (row) => row.require_docs),
  c.required("sms_enabled", "boolean", (row) => row.sms_enabled),
  // A number in the answer (not a decimal string); numeric keeps it exact as written.
  c.required("sms_price", "numeric", (row) => String(row.sms_price)),
] as const;

/** A row of `platform.number_catalog` as readers get it. */
export type NumberCatalogRow = RowOf<typeof NUMBER_CATALOG_COLUMNS>;

/**
 * The catalog of numbers for sale, as a dated snapshot for price history: for each country of the
 * account's `number_catalog.countries`, its cities (`GET /v1/buy/countries/{country}/cities`), then
 * each city's available numbers (`…/cities/{city}/dids`, paged), with `text_enabled_only` when set.
 * Once a day: today's snapshot is replaced by each run, older days stay.
 */
export const numberCatalogStream = defineStream({
  name: "number_catalog",
  resource: CATALOGUE.available_numbers,
  discovery: {
    requests: (context) => {
      const { countries, textEnabledOnly } = context.sources.numberCatalog;
      return countries.map((country) => ({
        path: resourcePath(CATALOGUE.number_cities, context.revision, [String(country)]),
        query: textFilter(textEnabledOnly),
        implied: { country_id: String(country) },
      }));
    },
    answer: answerOf(CATALOGUE.number_cities),
    values: (row, implied) => {
      const city = row as { id: number; name: string };
      return { ...implied, city_id: String(city.id), city_name: city.name };
    },
  },
  requests(_slice, context): readonly StreamRequest[] {
    const query = textFilter(context.sources.numberCatalog.textEnabledOnly);
    return context.discovered.map((city) => ({
      path: resourcePath(CATALOGUE.available_numbers, context.revision, [city.country_id!, city.city_id!]),
      query,
      implied: { ...city, snapshot_date: context.today },
    }));
  },
  columns: NUMBER_CATALOG_COLUMNS,
  table: {
    name: "platform.number_catalog",
    key: ["snapshot_date", "country_id", "city_id", "number"],
    writeMode: "replace_snapshot",
    windowColumn: "snapshot_date",
  },
});
