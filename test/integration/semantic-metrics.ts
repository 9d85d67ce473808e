import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";

/**
 * The dbt project's MetricFlow metrics and the marts' columns, read from its YAML (the semantic
 * manifest's sources) for the test that a metric and a mart column of the same name are one
 * formula: each simple metric resolved to its measure's aggregation over the semantic model's
 * table, each ratio (a derived metric, see ratioOf) to its numerator and denominator metrics.
 */

/** A semantic model: the mart it reads, the names it can be grouped by (dimensions, entities), its metric_time. */
export interface SemanticModel {
  readonly name: string;
  readonly table: string;
  readonly groupable: ReadonlySet<string>;
  readonly aggTime: string;
  readonly measures: ReadonlyMap<string, { readonly agg: string; readonly expr: string }>;
}

/** A metric: simple (one measure) or ratio (of two metrics). */
export type Metric =
  | { readonly kind: "simple"; readonly name: string; readonly measure: string }
  | {
      readonly kind: "ratio";
      readonly name: string;
      readonly numerator: string;
      readonly denominator: string;
    };

/** A mart's documented columns and its grain (the `unique_combination` its column_rules test states). */
export interface MartColumns {
  readonly name: string;
  readonly columns: ReadonlySet<string>;
  readonly grain: readonly string[] | undefined;
}

/** The semantic layer and the marts of the dbt project at `dbtDir`. */
export interface DbtYaml {
  readonly semanticModels: readonly SemanticModel[];
  readonly metrics: ReadonlyMap<string, Metric>;
  readonly marts: readonly MartColumns[];
}

type Yaml = Record<string, unknown>;
const list = (value: unknown): Yaml[] => (Array.isArray(value) ? (value as Yaml[]) : []);

function semanticModelOf(raw: Yaml): SemanticModel {
  const table = /ref\('([^']+)'\)/.exec(String(raw.model))?.[1];
  if (table === undefined) throw new Error(`semantic model ${String(raw.name)}: model is not a ref()`);
  const names = [...list(raw.dimensions), ...list(raw.entities)].map((d) => String(d.name));
  const measures = new Map(
    list(raw.measures).map((m) => [String(m.name), { agg: String(m.agg), expr: String(m.expr ?? m.name) }]),
  );
  const aggTime = String(((raw.defaults ?? {}) as Yaml).agg_time_dimension);
  return { name: String(raw.name), table, groupable: new Set(names), aggTime, measures };
}

function metricOf(raw: Yaml): Metric {
  const params = (raw.type_params ?? {}) as Yaml;
  const name = String(raw.name);
  if (raw.type === "simple") return { kind: "simple", name, measure: String(params.measure) };
  if (raw.type === "derived") return ratioOf(name, params);
  if (raw.type === "ratio")
    throw new Error(`metric ${name}: write a ratio as a derived metric (see ratioOf)`);
  throw new Error(`metric ${name}: type ${String(raw.type)} is not read by this test; teach it`);
}

/**
 * A ratio is a derived metric of exactly two metrics, `cast(N as numeric) / nullif(D, 0)`: numeric
 * division (a `type: ratio` metric makes MetricFlow divide in double precision), NULL for a zero
 * denominator. Any other derived metric is refused, so a new formula is taught here first.
 */
function ratioOf(name: string, params: Yaml): Metric {
  const inputs = list(params.metrics).map((m) => String(m.name));
  const [numerator, denominator] = inputs;
  const expected = `cast(${numerator} as numeric) / nullif(${denominator}, 0)`;
  if (inputs.length !== 2 || String(params.expr) !== expected) {
    throw new Error(`metric ${name}: a derived metric must be a ratio, expr ${expected}`);
  }
  return { kind: "ratio", name, numerator: numerator!, denominator: denominator! };
}

function grainOf(model: Yaml): readonly string[] | undefined {
  for (const test of list(model.data_tests)) {
    const rules = (test.column_rules ?? test["dbt_utils.unique_combination_of_columns"]) as Yaml | undefined;
    const args = (rules?.arguments ?? {}) as Yaml;
    const grain = args.unique_combination ?? args.combination_of_columns;
    if (Array.isArray(grain)) return grain.map(String);
  }
  return undefined;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith(".yml")).map((f) => path.join(dir, f));
}

/** Reads every YAML file under `dbtDir`/models/marts: semantic models, metrics, marts. */
export async function readDbtYaml(dbtDir: string): Promise<DbtYaml> {
  const semanticModels: SemanticModel[] = [];
  const metrics = new Map<string, Metric>();
  const marts: MartColumns[] = [];
  for (const file of await yamlFiles(path.join(dbtDir, "models", "marts"))) {
    const doc = (parse(await readFile(file, "utf8")) ?? {}) as Yaml;
    for (const raw of list(doc.semantic_models)) semanticModels.push(semanticModelOf(raw));
    for (const raw of list(doc.metrics)) metrics.set(String(raw.name), metricOf(raw));
    // A model named int_ keeps a mart's state; it is not read by BI.
    for (const raw of list(doc.models).filter((m) => !String(m.name).startsWith("int_"))) {
      const columns = new Set(list(raw.columns).map((c) => String(c.name)));
      marts.push({ name: String(raw.name), columns, grain: grainOf(raw) });
    }
  }
  return { semanticModels, metrics, marts };
}

/** The simple metrics a metric is computed from: itself, or a ratio's numerator and denominator. */
export function simpleParts(metric: Metric, metrics: ReadonlyMap<string, Metric>): readonly Metric[] {
  if (metric.kind === "simple") return [metric];
  return [metric.numerator, metric.denominator].flatMap((name) => {
    const part = metrics.get(name);
    if (part === undefined) throw new Error(`ratio metric ${metric.name}: no metric ${name}`);
    return simpleParts(part, metrics);
  });
}

/** The semantic model holding a simple metric's measure. */
export function modelOfMeasure(models: readonly SemanticModel[], measure: string): SemanticModel {
  const model = models.find((m) => m.measures.has(measure));
  if (model === undefined) throw new Error(`no semantic model has measure ${measure}`);
  return model;
}

/** The SQL aggregation of a measure, the way MetricFlow writes it for `agg`. */
export function aggregationSql(measure: { readonly agg: string; readonly expr: string }): string {
  const aggs: Record<string, (expr: string) => string> = {
    sum: (e) => `sum(${e})`,
    count_distinct: (e) => `count(distinct ${e})`,
    max: (e) => `max(${e})`,
    min: (e) => `min(${e})`,
    average: (e) => `avg(${e})`,
  };
  const agg = aggs[measure.agg];
  if (agg === undefined) throw new Error(`measure agg ${measure.agg} is not read by this test; teach it`);
  return agg(measure.expr);
}
