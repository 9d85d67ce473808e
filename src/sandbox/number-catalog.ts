import type { PurchasableNumber } from "../platform/numbers.js";
import { type CatalogCity, US_CITIES } from "./catalog.js";
import { formatMicros } from "./money.js";
import { hash32, Rng } from "./prng.js";

/** Country id of the United States in the number catalog (the only country with stock). */
export const US_COUNTRY_ID = 1;

/** Whether a city has text-enabled numbers in stock. */
export function cityHasTextNumbers(seed: number, city: CatalogCity): boolean {
  return hash32(seed, "city-text", city.id) % 10 < 7;
}

/** Numbers available in a city, in serving order (by number). Pure. */
export function availableNumbers(seed: number, city: CatalogCity): PurchasableNumber[] {
  const rng = new Rng(hash32(seed, "stock", city.id));
  const count = 30 + rng.int(0, 50);
  const text = cityHasTextNumbers(seed, city);
  const numbers = new Set<string>();
  while (numbers.size < count) numbers.add(`1${city.areaCode}${rng.int(2, 9)}${rng.digits(6)}`);
  return [...numbers].sort().map((number) => {
    const item = new Rng(hash32(seed, "stock-item", number));
    return {
      id: Number(number),
      number,
      activation_fee: formatMicros(item.pick([0, 500_000, 1_000_000])),
      monthly_fee: formatMicros(item.pick([1_000_000, 1_500_000, 2_500_000])),
      per_min: formatMicros(item.pick([0, 5_000, 8_000])),
      channels: String(item.pick([2, 4, 10])),
      city: city.name,
      country: "United States",
      country_short_name: "US",
      cnam: item.chance(0.5),
      domestic_cli: item.chance(0.3),
      free_min: 0,
      require_docs: [],
      sms_enabled: text && item.chance(0.6),
      sms_price: 0.0075,
    };
  });
}

/** A purchasable number by its digits, across every city, or undefined. */
export function findAvailableNumber(seed: number, number: string): PurchasableNumber | undefined {
  const city = US_CITIES.find((c) => number.startsWith(`1${c.areaCode}`));
  return city ? availableNumbers(seed, city).find((n) => n.number === number) : undefined;
}
