import { purchasableNumberSchema } from "@telecom-etl/platform/numbers.js";
import { US_CITIES } from "@telecom-etl/sandbox/catalog.js";
import { availableNumbers } from "@telecom-etl/sandbox/number-catalog.js";
import { describe, expect, it } from "vitest";

const SEED = 5;
const at = (iso: string) => Date.parse(iso);
const priceKey = (n: { monthly_fee: string; per_min: string; sms_price: number }) =>
  `${n.monthly_fee}|${n.per_min}|${n.sms_price}`;

describe("sandbox number catalog prices over sandbox time", () => {
  it("keeps the stock and changes some prices only at month boundaries", () => {
    let changedAtBoundary = 0;
    let unchanged = 0;
    for (const city of US_CITIES) {
      const august = availableNumbers(SEED, city, at("2026-08-01T00:00:00Z"));
      const lateAugust = availableNumbers(SEED, city, at("2026-08-31T23:59:59.999Z"));
      const september = availableNumbers(SEED, city, at("2026-09-01T00:00:00Z"));
      for (const n of september) purchasableNumberSchema.parse(n);
      expect(lateAugust).toEqual(august);
      expect(september.map((n) => n.number)).toEqual(august.map((n) => n.number));
      september.forEach((n, i) => {
        const before = august[i]!;
        // Only prices move; the rest of a number stays as it was.
        expect({ ...n, monthly_fee: "", per_min: "", sms_price: 0 }).toEqual({
          ...before,
          monthly_fee: "",
          per_min: "",
          sms_price: 0,
        });
        if (priceKey(n) !== priceKey(before)) changedAtBoundary += 1;
        else unchanged += 1;
      });
    }
    expect(changedAtBoundary).toBeGreaterThan(0);
    expect(unchanged).toBeGreaterThan(changedAtBoundary);
  });

  it("is a pure function of the seed, the city and the month", () => {
    const city = US_CITIES[3]!;
    expect(availableNumbers(SEED, city, at("2026-10-10T00:00:00Z"))).toEqual(
      availableNumbers(SEED, city, at("2026-10-20T12:00:00Z")),
    );
    const prices = (seed: number) =>
      availableNumbers(seed, city, at("2026-10-10T00:00:00Z")).map(priceKey).join(",");
    expect(prices(SEED)).not.toBe(prices(SEED + 1));
  });
});
