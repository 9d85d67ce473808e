import { HOURLY_WEIGHTS } from "./catalog.js";
import { hash32, Rng, unitHash } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { isWorldDay, type SandboxAccount, type SandboxWorld } from "./world.js";

/** One generated click, with its pre-serialized JSON. */
export interface ShortLinkClick {
  readonly createdAtMs: number;
  readonly phone: string;
  readonly utmCampaign: string;
  readonly index: number;
  readonly json: string;
}

const PLACES = [
  [40.7128, -74.006],
  [34.0522, -118.2437],
  [41.8781, -87.6298],
  [29.7604, -95.3698],
  [25.7617, -80.1918],
  [47.6062, -122.3321],
  [42.3601, -71.0589],
  [39.7392, -104.9903],
  [19.4326, -99.1332],
  [51.5074, -0.1278],
] as const;
const SYSTEMS = ["iOS", "Android", "Windows", "macOS", "Linux"] as const;
const BROWSERS = ["Safari", "Chrome", "Samsung Internet", "Firefox", "Edge"] as const;
const LANGUAGES = ["en-US", "es-US", "es-MX", "en-GB", "fr-FR"] as const;
const HOURS = HOURLY_WEIGHTS.map((_, h) => h);

/** Formats epoch ms like the platform's short-link `created_at`: `2023-07-19 18:23:42.120Z`. */
export function formatShortLinkTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11)}`;
}

/** The phone numbers that receive an account's short links (recipients who click). */
export function recipientPhone(world: SandboxWorld, account: SandboxAccount, n: number): string {
  return `1${(2_000_000_000 + (hash32(world.seed, "recipient", account.index, n) % 7_000_000_000)).toString()}`;
}

/** Clicks of one account on one day, ordered by `created_at`, then link hash, then phone. Pure. */
export function generateShortLinkDay(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
): ShortLinkClick[] {
  const dayStartMs = dayNumber * DAY_MS;
  if (!isWorldDay(world, dayNumber) || account.shortLinks.length === 0) return [];
  const rng = new Rng(hash32(world.seed, "short-links", account.index, dayNumber));
  const noise = 0.7 + 0.6 * unitHash(world.seed, "clicks", account.index, dayNumber);
  const count = Math.max(3, Math.round(world.callsPerDay * 0.04 * noise));
  const clicks: Omit<ShortLinkClick, "json" | "index">[] = [];
  const bodies: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const link = rng.pick(account.shortLinks);
    const createdAtMs = dayStartMs + rng.weighted(HOURS, HOURLY_WEIGHTS) * 3_600_000 + rng.int(0, 3_599_999);
    const [lat, lon] = rng.pick(PLACES);
    const phone = recipientPhone(world, account, rng.int(0, 199));
    clicks.push({ createdAtMs, phone, utmCampaign: link.utmCampaign });
    bodies.push({
      latitude: Math.round((lat + (rng.next() - 0.5) * 0.4) * 1e6) / 1e6,
      longitude: Math.round((lon + (rng.next() - 0.5) * 0.4) * 1e6) / 1e6,
      operating_system: rng.weighted(SYSTEMS, [45, 40, 8, 5, 2]),
      browser: rng.weighted(BROWSERS, [42, 40, 10, 5, 3]),
      language: rng.weighted(LANGUAGES, [70, 12, 8, 6, 4]),
      phone,
      utm_campaign: link.utmCampaign,
      created_at: formatShortLinkTime(createdAtMs),
      link_hash: link.linkHash,
      user_id: account.userId,
    });
  }
  const order = clicks.map((_, i) => i);
  const key = (i: number) => `${bodies[i]!.created_at}|${bodies[i]!.link_hash}|${clicks[i]!.phone}|${i}`;
  order.sort((a, b) => (key(a) < key(b) ? -1 : 1));
  return order.map((i, position) => ({ ...clicks[i]!, index: position, json: JSON.stringify(bodies[i]) }));
}
