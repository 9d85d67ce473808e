import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * Issue 16 item 5: a BI tool sums every numeric column by default, which is wrong for a rate, a
 * ratio, an average, a peak or a distinct count. Every such column of a report (`rpt_*`) says so:
 * its description starts with "Non-additive", naming how to re-aggregate it. Read from the model
 * ymls, so a new report column with such a name and no label fails here.
 */
const MARTS = path.resolve(import.meta.dirname, "../../dbt/models/marts");
/** Names of measures that cannot be summed: a rate, ratio, average, peak, unique/distinct count or share. */
const NON_ADDITIVE_NAME = /(^|_)(rate|ratio|avg|average|peak|unique|distinct|share)(_|$)/;
/** Instants and days (peak_at, busy_hour_start_at) are attributes of a measure, not measures. */
const NOT_A_MEASURE = /_(at|date|hour)$/;

interface ModelYml {
  readonly name: string;
  readonly columns?: readonly { readonly name: string; readonly description?: string }[];
}

function modelYmls(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => /(^|\/)_[^/]*__models\.yml$/.test(file))
    .map((file) => path.join(folder, file));
}

/** Every report column whose name says it is non-additive: `model.column` and its description. */
function nonAdditiveColumns(): { readonly column: string; readonly description: string }[] {
  return modelYmls(MARTS).flatMap((file) => {
    const doc = parse(readFileSync(file, "utf8")) as { models?: readonly ModelYml[] } | null;
    return (doc?.models ?? [])
      .filter((model) => model.name.startsWith("rpt_"))
      .flatMap((model) =>
        (model.columns ?? [])
          .filter((c) => NON_ADDITIVE_NAME.test(c.name) && !NOT_A_MEASURE.test(c.name))
          .map((c) => ({ column: `${model.name}.${c.name}`, description: (c.description ?? "").trim() })),
      );
  });
}

describe("non-additive report columns", () => {
  it("finds the ones it must (the scan reads the ymls)", () => {
    const columns = nonAdditiveColumns().map((c) => c.column);
    expect(columns).toContain("rpt_account_concurrency_daily.peak_concurrent_legs");
    expect(columns).toContain("rpt_call_volume_hourly.peak_concurrent_legs");
    expect(columns).toContain("rpt_campaign_daily.unique_clickers");
  });

  it('describes every rate, ratio, average, peak, distinct count and share as "Non-additive"', () => {
    const unlabelled = nonAdditiveColumns()
      .filter((c) => !c.description.startsWith("Non-additive"))
      .map((c) => c.column);
    expect(unlabelled).toEqual([]);
  });
});
