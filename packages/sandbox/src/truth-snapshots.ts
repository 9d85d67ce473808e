import { US_CITIES } from "./catalog.js";
import { availableNumbers, cityHasTextNumbers, US_COUNTRY_ID } from "./number-catalog.js";
import { ownedDidRows } from "./owned-numbers.js";
import { brandAppeals, brandsOf } from "./routes/ten-dlc-routes.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { appendJsonField } from "./serialize-cdr.js";
import { trunkSummariesOf } from "./trunk-list.js";
import type { SandboxAccount } from "./world.js";

/** Streams a loader reads as a whole (full refresh): their truth is what the account has now. */
export const SNAPSHOT_STREAMS = [
  "sip_trunks",
  "numbers",
  "brands",
  "brand_appeals",
  "call_webhooks",
  "sub_accounts",
] as const;
/** A snapshot stream. */
export type SnapshotStream = (typeof SNAPSHOT_STREAMS)[number];

/** The sub-accounts `account` can read: every sub-account for the master, itself for a sub-account. */
export function visibleSubAccounts(runtime: SandboxRuntime, account: SandboxAccount): SandboxAccount[] {
  return runtime.world.accounts.filter(
    (a) => a.role === "sub" && (account.role === "master" || a.index === account.index),
  );
}

/**
 * What the account has at `nowMs` (the truth query's clock), one JSON line per record as the
 * platform serves it: `sip_trunks` (`GET /v1/trunks` items: summaries with month-to-date
 * `talk_time` and `charge`, `access_token` included), `numbers` (owned numbers, `GET /v1/mydids`
 * items), `brands` (`GET /v3/10dlc/brands` items), `brand_appeals` (each appeal of each brand plus
 * `brand_id`), `call_webhooks` (`GET /v1/calls/webhooks` items), `sub_accounts` (each
 * sub-account the account may read, `GET /v1/sub-organizations/{id}` body, `api_key` included).
 */
export function snapshotLines(
  runtime: SandboxRuntime,
  stream: SnapshotStream,
  account: SandboxAccount,
  nowMs: number,
): string[] {
  const lines = (items: readonly unknown[]) => items.map((item) => JSON.stringify(item));
  switch (stream) {
    case "sip_trunks":
      return lines(trunkSummariesOf(runtime, account, nowMs));
    case "numbers":
      return ownedDidRows(runtime, account, nowMs).map((row) => row.json);
    case "brands":
      return lines(brandsOf(runtime, account));
    case "brand_appeals":
      return account.brands.flatMap((brand) =>
        brandAppeals(runtime.world.seed, brand, runtime.world.startMs, nowMs).map((appeal) =>
          appendJsonField(JSON.stringify(appeal), "brand_id", brand.brandId),
        ),
      );
    case "call_webhooks":
      return lines(runtime.state.webhooksOf(account, nowMs));
    case "sub_accounts":
      return lines(visibleSubAccounts(runtime, account).map((sub) => runtime.state.subAccount(sub)));
  }
}

/**
 * The number catalog of a country now: every available number of every city the cities route
 * lists (with `text_enabled_only`, only cities with text-enabled numbers and only SMS-enabled
 * numbers), each as `GET .../cities/{city}/dids` serves it plus `city_id`; by city, then number.
 * Null for a country without stock (the API answers 404 there).
 */
export function numberCatalogLines(
  runtime: SandboxRuntime,
  country: number,
  textOnly: boolean,
): string[] | null {
  if (country !== US_COUNTRY_ID) return null;
  const { seed } = runtime.world;
  const nowMs = runtime.clock.now();
  return US_CITIES.filter((city) => !textOnly || cityHasTextNumbers(seed, city)).flatMap((city) =>
    availableNumbers(seed, city, nowMs)
      .filter((n) => !textOnly || n.sms_enabled)
      .map((n) => appendJsonField(JSON.stringify(n), "city_id", city.id)),
  );
}
