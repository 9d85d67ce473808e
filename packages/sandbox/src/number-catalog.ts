import type { PurchasableNumber } from "@telecom-etl/platform/numbers.js";
import { type CatalogCity, US_CITIES } from "./catalog.js";
import { formatMicros } from "./money.js";
import { hash32, Rng, unitHash } from "./prng.js";

/** Country id of the United States in the number catalog (the only country with stock). */
export const US_COUNTRY_ID = 1;

/** How far back a number's price history is looked up (months); older revisions are the base price. */
const HISTORY_MONTHS = 36;
/** Share of (city, month) boundaries at which the city's prices are revised. */
const REVISION_SHARE = 0.5;
/** Share of a city's numbers whose price changes at one of its revisions. */
const CHANGE_SHARE = 0.3;

/** Whether a city has text-enabled numbers in stock. */
export function cityHasTextNumbers(seed: number, city: CatalogCity): boolean {
  return hash32(seed, "city-text", city.id) % 10 < 7;
}

/** Months since 1970-01 of the UTC month holding `ms`. */
function monthIndex(ms: number): number {
  const date = new Date(ms);
  return date.getUTCFullYear() * 12 + date.getUTCMonth() - 1970 * 12;
}

/**
 * The months (indices, newest first) at whose first instant the city's prices were revised, up
 * to `month`. At every boundary at least one city (a seeded one) revises, so a snapshot taken in
 * another month always differs somewhere.
 */
function revisionMonths(seed: number, city: CatalogCity, month: number): number[] {
  const months: number[] = [];
  for (let m = month; m > month - HISTORY_MONTHS; m--) {
    const lead = US_CITIES[hash32(seed, "price-lead", m) % US_CITIES.length]!;
    if (lead.id === city.id || unitHash(seed, "price-revision", city.id, m) < REVISION_SHARE) months.push(m);
  }
  return months;
}

interface Prices {
  readonly monthlyFeeMicros: number;
  readonly perMinMicros: number;
  readonly smsPrice: number;
}

/**
 * A number's prices in `month`: those drawn at the latest revision of its city that changed this
 * number, or its base prices when none did within {@link HISTORY_MONTHS}.
 */
function pricesOf(seed: number, number: string, revisions: readonly number[], base: Prices): Prices {
  for (const m of revisions) {
    if (unitHash(seed, "price-change", number, m) >= CHANGE_SHARE) continue;
    const rng = new Rng(hash32(seed, "price", number, m));
    return {
      monthlyFeeMicros: rng.pick([1_000_000, 1_250_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000]),
      perMinMicros: rng.pick([0, 4_000, 5_000, 8_000, 10_000]),
      smsPrice: rng.pick([0.007, 0.0075, 0.0079, 0.0085]),
    };
  }
  return base;
}

/**
 * Numbers available in a city at sandbox time `nowMs`, in serving order (by number). Pure. The
 * stock is fixed; prices (`monthly_fee`, `per_min`, `sms_price`) follow a seeded history: at about
 * half of the month boundaries (00:00 UTC on the 1st, and at every boundary for one seeded city) a
 * city revises its prices, and each revision changes about 30% of its numbers, so snapshots taken
 * in different months differ for some numbers.
 */
export function availableNumbers(seed: number, city: CatalogCity, nowMs: number): PurchasableNumber[] {
  const rng = new Rng(hash32(seed, "stock", city.id));
  const count = 30 + rng.int(0, 50);
  const text = cityHasTextNumbers(seed, city);
  const numbers = new Set<string>();
  while (numbers.size < count) numbers.add(`1${city.areaCode}${rng.int(2, 9)}${rng.digits(6)}`);
  const revisions = revisionMonths(seed, city, monthIndex(nowMs));
  return [...numbers].sort().map((number) => {
    const item = new Rng(hash32(seed, "stock-item", number));
    const activationFeeMicros = item.pick([0, 500_000, 1_000_000]);
    const base = {
      monthlyFeeMicros: item.pick([1_000_000, 1_500_000, 2_500_000]),
      perMinMicros: item.pick([0, 5_000, 8_000]),
      smsPrice: 0.0075,
    };
    const prices = pricesOf(seed, number, revisions, base);
    return {
      id: Number(number),
      number,
      activation_fee: formatMicros(activationFeeMicros),
      monthly_fee: formatMicros(prices.monthlyFeeMicros),
      per_min: formatMicros(prices.perMinMicros),
      channels: String(item.pick([2, 4, 10])),
      city: city.name,
      country: "United States",
      country_short_name: "US",
      cnam: item.chance(0.5),
      domestic_cli: item.chance(0.3),
      free_min: 0,
      require_docs: [],
      sms_enabled: text && item.chance(0.6),
      sms_price: prices.smsPrice,
    };
  });
}

/** A purchasable number by its digits at `nowMs`, across every city, or undefined. */
export function findAvailableNumber(
  seed: number,
  number: string,
  nowMs: number,
): PurchasableNumber | undefined {
  const city = US_CITIES.find((c) => number.startsWith(`1${c.areaCode}`));
  return city ? availableNumbers(seed, city, nowMs).find((n) => n.number === number) : undefined;
}
