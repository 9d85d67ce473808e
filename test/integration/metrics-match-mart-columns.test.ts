import path from "node:path";
import { sql } from "kysely";
import { projectRoot } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { buildMarts, loadMartStreamsAt } from "./marts-build.js";
import {
  aggregationSql,
  type DbtYaml,
  type MartColumns,
  type Metric,
  modelOfMeasure,
  readDbtYaml,
  type SemanticModel,
  simpleParts,
} from "./semantic-metrics.js";

/**
 * Issue 35, one name per measure: every MetricFlow metric that shares its name with a mart column
 * is the same formula. The pairs are derived from the dbt YAML (metrics and semantic models, the
 * sources of the semantic manifest; each mart's documented columns and the grain its column_rules
 * test states), so a new metric or column joins the check by itself. The route, chosen over
 * `mf query` (4–7 s a query, dozens of pairs): each metric is computed the way MetricFlow compiles
 * it — its measure's aggregation over its semantic model's mart, grouped by the mart's grain; a
 * ratio as numerator / denominator — and compared with the mart column on every row of the mart,
 * to the column's numeric scale. A pair whose mart grain is not a set of the semantic model's
 * dimensions cannot be asked of MetricFlow at that grain: it is listed below with why, and the test
 * fails when the list and the project disagree.
 */
const NOT_COMPARABLE: Record<string, string> = {
  "erlangs rpt_call_volume_hourly":
    "per UTC hour; summed over a day's hours they are Erlang-hours, the metric is per day",
  "peak_concurrent_legs rpt_call_volume_hourly":
    "a trunk's peak per UTC hour; the metric is an account's per day",
  "clicks rpt_campaign_click_mix":
    "per (dimension, value): a click counts once in each dimension; the metric has no such grain",
  "ledger_usd fct_invoices_reconciled":
    "per invoice × product over the invoiced period; the metric is per UTC day and ledger product",
  "unique_clickers rpt_campaign_click_mix":
    "per (dimension, value): a distinct count the metric has no grain for",
};

it.override({
  sandboxOptions: {
    seed: 41,
    start: "2026-08-01",
    days: 3,
    accounts: 1,
    callsPerDay: 150,
    now: "2026-08-01T00:00:00Z",
  },
});

type Values = Map<string, number | null>;
const keyOf = (row: Record<string, unknown>, grain: readonly string[]) =>
  JSON.stringify(grain.map((g) => (row[g] === null ? null : String(row[g]))));

/** A metric asked on a mart's grain: the grain columns kept; `summed` when the mart's others are summed away. */
interface Plan {
  readonly grain: readonly string[];
  readonly summed: boolean;
}

/** A grain column as the semantic model groups by it: its own dimension, or a day as its metric_time. */
const factColumn = (model: SemanticModel, column: string): string | undefined =>
  model.groupable.has(column) ? column : column.endsWith("_date") ? model.aggTime : undefined;

/**
 * How the metric can be asked on the mart's grain: every grain column, when each part's semantic
 * model groups by it; else, for a summed measure, the grain columns it groups by, the mart's rows
 * summed over the others. Undefined when neither (the pair is listed in NOT_COMPARABLE).
 */
function planOf(yaml: DbtYaml, metric: Metric, mart: MartColumns): Plan | undefined {
  if (mart.grain === undefined) return undefined;
  const models = simpleParts(metric, yaml.metrics).map((p) =>
    modelOfMeasure(yaml.semanticModels, p.kind === "simple" ? p.measure : ""),
  );
  const kept = mart.grain.filter((g) => models.every((m) => factColumn(m, g) !== undefined));
  if (kept.length === mart.grain.length) return { grain: kept, summed: false };
  const additive = metric.kind === "simple" && models[0]!.measures.get(metric.measure)?.agg === "sum";
  return additive && kept.includes("account") ? { grain: kept, summed: true } : undefined;
}

/** A simple metric per grain key over its semantic model's mart, as MetricFlow aggregates it. */
async function simpleValues(warehouse: Warehouse, yaml: DbtYaml, metric: Metric, grain: readonly string[]) {
  if (metric.kind !== "simple") throw new Error(`${metric.name} is not simple`);
  const model = modelOfMeasure(yaml.semanticModels, metric.measure);
  const measure = model.measures.get(metric.measure)!;
  const columns = grain.map((g) => sql`${sql.ref(factColumn(model, g)!)} AS ${sql.ref(g)}`);
  const found = await sql<Record<string, unknown>>`
    SELECT ${sql.join(columns)}, (${sql.raw(aggregationSql(measure))})::text AS value
    FROM ${sql.table(`analytics_marts.${model.table}`)}
    GROUP BY ${sql.join(grain.map((_, i) => sql.raw(String(i + 1))))}`.execute(warehouse.db);
  const values: Values = new Map(
    found.rows.map((r) => [keyOf(r, grain), r.value === null ? null : Number(r.value)]),
  );
  // A group without rows: 0 for a sum or a distinct count (MetricFlow's fill), unknown otherwise.
  return { values, absent: measure.agg === "sum" || measure.agg === "count_distinct" ? 0 : null };
}

/** The metric's value of one grain key: the simple metric's, or numerator / denominator. */
async function metricValues(warehouse: Warehouse, yaml: DbtYaml, metric: Metric, grain: readonly string[]) {
  const parts = await Promise.all(
    simpleParts(metric, yaml.metrics).map((p) => simpleValues(warehouse, yaml, p, grain)),
  );
  const at = (i: number, key: string) =>
    parts[i]!.values.has(key) ? parts[i]!.values.get(key)! : parts[i]!.absent;
  return (key: string): number | null => {
    if (metric.kind === "simple") return at(0, key);
    const [numerator, denominator] = [at(0, key), at(1, key)];
    return numerator === null || denominator === null || denominator === 0 ? null : numerator / denominator;
  };
}

/** The tolerance of a mart column: half a unit of its numeric scale, or 1e-9 without one. */
async function toleranceOf(warehouse: Warehouse, mart: string, column: string): Promise<number> {
  const { rows } = await sql<{ scale: number | null }>`
    SELECT numeric_scale AS scale FROM information_schema.columns
    WHERE table_schema = 'analytics_marts' AND table_name = ${mart} AND column_name = ${column}`.execute(
    warehouse.db,
  );
  const scale = rows[0]?.scale ?? null;
  return scale === null ? 1e-9 : 0.5 * 10 ** -scale + 1e-12;
}

/** The rows of the mart column whose value is not the metric's on the same grain. */
async function differences(
  warehouse: Warehouse,
  yaml: DbtYaml,
  metric: Metric,
  mart: MartColumns,
  plan: Plan,
) {
  const metricAt = await metricValues(warehouse, yaml, metric, plan.grain);
  const tolerance = await toleranceOf(warehouse, mart.name, metric.name);
  const grain = sql.join(plan.grain.map((g) => sql.ref(g)));
  const value = plan.summed ? sql`sum(${sql.ref(metric.name)})` : sql.ref(metric.name);
  const rows = await sql<Record<string, unknown>>`
    SELECT ${grain}, (${value})::text AS value FROM ${sql.table(`analytics_marts.${mart.name}`)}
    ${plan.summed ? sql`GROUP BY ${grain}` : sql``}`.execute(warehouse.db);
  const off = rows.rows.flatMap((r) => {
    const key = keyOf(r, plan.grain);
    const [inMart, asMetric] = [r.value === null ? null : Number(r.value), metricAt(key)];
    const same =
      inMart === null || asMetric === null ? inMart === asMetric : Math.abs(inMart - asMetric) <= tolerance;
    return same ? [] : [`${key}: mart ${inMart}, metric ${asMetric}`];
  });
  return { rows: rows.rows.length, off };
}

describe("one name, one formula: metrics and mart columns", () => {
  it("every metric named like a mart column equals it on the mart's grain", {
    timeout: 600_000,
  }, async ({ sandbox, database }) => {
    await loadMartStreamsAt(sandbox, database.warehouse, "2026-08-04T06:00:00Z");
    await buildMarts(database.warehouse, ["--full-refresh"]);
    const yaml = await readDbtYaml(path.join(projectRoot(), "dbt"));
    const pairs = [...yaml.metrics.values()].flatMap((metric) =>
      yaml.marts.filter((m) => m.columns.has(metric.name)).map((mart) => ({ metric, mart })),
    );
    expect(pairs.length).toBeGreaterThan(20);
    const listed = (p: { metric: Metric; mart: MartColumns }) =>
      `${p.metric.name} ${p.mart.name}` in NOT_COMPARABLE;
    const skipped = pairs.filter(listed).map((p) => `${p.metric.name} ${p.mart.name}`);
    const planned = pairs
      .filter((p) => !listed(p))
      .map((p) => ({ ...p, plan: planOf(yaml, p.metric, p.mart) }));
    const unplanned = planned
      .filter((p) => p.plan === undefined)
      .map((p) => `${p.metric.name} ${p.mart.name}`);
    const report: string[] = [];
    let compared = 0;
    let comparedPairs = 0;
    const empty: string[] = [];
    for (const { metric, mart, plan } of planned) {
      if (plan === undefined) continue;
      const found = await differences(database.warehouse, yaml, metric, mart, plan);
      if (found.rows === 0) empty.push(`${metric.name} ${mart.name}`);
      else comparedPairs += 1;
      compared += found.rows;
      if (found.off.length > 0) {
        report.push(
          `${metric.name} vs ${mart.name}: ${found.off.length}/${found.rows} rows differ, e.g. ${found.off[0]}`,
        );
      }
    }
    expect(report).toEqual([]);
    // The world leaves a few marts empty (no validations loaded); the rest must be compared.
    expect(comparedPairs).toBeGreaterThan(30);
    expect(unplanned, "pairs neither comparable nor listed in NOT_COMPARABLE").toEqual([]);
    expect(skipped.sort(), "NOT_COMPARABLE lists a pair the project no longer has").toEqual(
      Object.keys(NOT_COMPARABLE).sort(),
    );
    console.info(
      `metrics vs mart columns: ${comparedPairs} pairs compared on ${compared} rows; empty here: ${empty.join(", ")}`,
    );
  });
});
