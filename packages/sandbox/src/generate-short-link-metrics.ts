import { clicksOn, type FunnelSource, pureFunnel } from "./campaign-funnel.js";
import { hash32, Rng } from "./prng.js";
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

/** Formats epoch ms like the platform's short-link `created_at`: `2023-07-19 18:23:42.120Z`. */
export function formatShortLinkTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11)}`;
}

/**
 * Clicks of one account on one day, ordered by `created_at`, then link hash, then phone. Every
 * click comes from the campaign funnel (campaign-funnel.ts): a phone a campaign's message was
 * delivered to clicks the link that message carried, after its delivery. The click's device and
 * place are seeded by the message clicked on. Pure (with the pure funnel source).
 */
export function generateShortLinkDay(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
  funnel: FunnelSource = pureFunnel(world, account),
): ShortLinkClick[] {
  if (!isWorldDay(world, dayNumber)) return [];
  const rows = clicksOn(world, account, funnel, dayNumber).map((click) => {
    const rng = new Rng(hash32(world.seed, "click", account.index, click.messageDay, click.messageIndex));
    const [lat, lon] = rng.pick(PLACES);
    const body = {
      latitude: Math.round((lat + (rng.next() - 0.5) * 0.4) * 1e6) / 1e6,
      longitude: Math.round((lon + (rng.next() - 0.5) * 0.4) * 1e6) / 1e6,
      operating_system: rng.weighted(SYSTEMS, [45, 40, 8, 5, 2]),
      browser: rng.weighted(BROWSERS, [42, 40, 10, 5, 3]),
      language: rng.weighted(LANGUAGES, [70, 12, 8, 6, 4]),
      phone: click.phone,
      utm_campaign: click.utmCampaign,
      created_at: formatShortLinkTime(click.createdAtMs),
      link_hash: click.linkHash,
      user_id: account.userId,
    };
    const key = `${body.created_at}|${body.link_hash}|${body.phone}|${click.messageDay}|${click.messageIndex}`;
    return { click, key, json: JSON.stringify(body) };
  });
  rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return rows.map((row, index) => ({
    createdAtMs: row.click.createdAtMs,
    phone: row.click.phone,
    utmCampaign: row.click.utmCampaign,
    index,
    json: row.json,
  }));
}
