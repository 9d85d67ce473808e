import { COMPANY_NAMES, US_CITIES } from "./catalog.js";
import { hash32, Rng } from "./prng.js";
import { DAY_MS, type ResolvedSandboxOptions } from "./sandbox-options.js";
import { buildSmsCampaigns, recipientPoolSize, type SandboxSmsCampaign } from "./sms-campaigns.js";
import { buildWebhookHistory, type WebhookChange } from "./webhook-history.js";

/** A SIP trunk of an account, with the settings that shape its CDRs. */
export interface SandboxTrunk {
  readonly id: number;
  /** System-generated login, the CDR `sip_trunk`. */
  readonly name: string;
  readonly label: string;
  readonly callerid: string;
  readonly recording: boolean;
  readonly machineDetection: boolean;
  readonly transcription: boolean;
  readonly transcriptionThreshold: number;
  readonly createdAtMs: number;
}

/** Where an owned number forwards inbound calls. */
export interface DidForward {
  readonly kind: "trunk" | "sip" | "pstn";
  /** Trunk name, SIP URI or phone number: the inbound CDR `destination`. */
  readonly target: string;
  readonly trunkId: number;
}

/** An owned number (DID) of an account. */
export interface SandboxDid {
  readonly id: number;
  readonly number: string;
  readonly city: string;
  readonly state: string;
  readonly activationFeeMicros: number;
  readonly monthlyFeeMicros: number;
  readonly perMinMicros: number;
  readonly channels: number;
  readonly smsEnabled: boolean;
  readonly recording: boolean;
  readonly transcription: boolean;
  readonly transcriptionThreshold: number;
  readonly forward: DidForward;
  readonly addedMs: number;
}

/** A short link of a campaign. */
export interface SandboxShortLink {
  readonly utmCampaign: string;
  readonly linkHash: string;
  readonly phone: string;
}

/** An asynchronous validation request (token) made by an account. */
export interface SandboxValidationRequest {
  readonly token: string;
  readonly createdAtMs: number;
  readonly count: number;
  /** Sandbox time needed to process every number. */
  readonly processingMs: number;
  readonly perNumberMicros: number;
}

/** A 10DLC brand with its campaigns. */
export interface SandboxBrand {
  readonly brandId: string;
  readonly campaignIds: readonly string[];
}

/** One account of the world: the master (index 0) or a sub-account. */
export interface SandboxAccount {
  readonly index: number;
  readonly id: number;
  /** Stable name used by the admin API and in configs: `master`, `sub-1`, `sub-2`, ... */
  readonly name: string;
  readonly companyName: string;
  readonly role: "master" | "sub";
  /** The account's API key (32 hex characters), full access. */
  readonly apiKey: string;
  readonly userId: number;
  readonly masterId: number;
  readonly createdAtMs: number;
  readonly trunks: readonly SandboxTrunk[];
  readonly dids: readonly SandboxDid[];
  readonly shortLinks: readonly SandboxShortLink[];
  readonly brands: readonly SandboxBrand[];
  readonly validations: readonly SandboxValidationRequest[];
  /** SMS/MMS campaigns, one per distinct `utm_campaign` of the short links (see sms-campaigns.ts). */
  readonly smsCampaigns: readonly SandboxSmsCampaign[];
  /** Size of the pool of phones the campaigns reach (`recipientPhone(seed, index, 0..n-1)`). */
  readonly recipientCount: number;
  /** Seeded changes of the account's call webhooks over sandbox time (see webhook-history.ts). */
  readonly webhookHistory: readonly WebhookChange[];
}

/** The seeded world: a pure function of the options. Streams are generated lazily from it. */
export interface SandboxWorld {
  readonly seed: number;
  readonly start: string;
  readonly startMs: number;
  /** Exclusive end of the days with traffic. */
  readonly endMs: number;
  readonly days: number;
  readonly callsPerDay: number;
  readonly lateShare: number;
  readonly accounts: readonly SandboxAccount[];
}

function usNumber(rng: Rng, areaCode: number): string {
  return `1${areaCode}${rng.int(2, 9)}${rng.digits(6)}`;
}

function buildTrunks(rng: Rng, accountId: number, callerid: string, createdAtMs: number): SandboxTrunk[] {
  const count = rng.int(1, 3);
  const trunks: SandboxTrunk[] = [];
  for (let t = 0; t < count; t++) {
    trunks.push({
      id: accountId * 10 + t + 1,
      name: `sip${accountId}${String.fromCharCode(97 + t)}${rng.digits(3)}`,
      label: ["Main office", "Call center", "Outbound sales"][t] ?? `Trunk ${t + 1}`,
      callerid,
      recording: rng.chance(0.5),
      machineDetection: rng.chance(0.5),
      transcription: rng.chance(0.6),
      transcriptionThreshold: rng.pick([6, 10, 30]),
      createdAtMs: createdAtMs + t * DAY_MS,
    });
  }
  return trunks;
}

function buildDids(
  rng: Rng,
  accountId: number,
  trunks: readonly SandboxTrunk[],
  startMs: number,
): SandboxDid[] {
  const count = rng.int(3, 7);
  const dids: SandboxDid[] = [];
  for (let d = 0; d < count; d++) {
    const city = rng.pick(US_CITIES);
    const trunk = rng.pick(trunks);
    const kind = rng.weighted(["trunk", "sip", "pstn"] as const, [5, 2, 3]);
    const target =
      kind === "trunk"
        ? trunk.name
        : kind === "sip"
          ? `sip:${100 + d}@pbx${accountId}.example.net`
          : usNumber(rng, 646);
    dids.push({
      id: accountId * 100 + d + 1,
      number: usNumber(rng, city.areaCode),
      city: city.name,
      state: city.state,
      activationFeeMicros: rng.pick([0, 500_000, 1_000_000]),
      monthlyFeeMicros: rng.pick([1_000_000, 1_500_000, 2_500_000, 4_500_000]),
      perMinMicros: rng.pick([0, 5_000, 8_000]),
      channels: rng.pick([2, 4, 10]),
      smsEnabled: rng.chance(0.6),
      recording: rng.chance(0.4),
      transcription: rng.chance(0.5),
      transcriptionThreshold: rng.pick([6, 15]),
      forward: { kind, target, trunkId: trunk.id },
      addedMs: startMs - rng.int(30, 400) * DAY_MS,
    });
  }
  return dids;
}

function buildValidations(rng: Rng, startMs: number, days: number): SandboxValidationRequest[] {
  const out: SandboxValidationRequest[] = [];
  for (let week = 0; week * 7 < days; week++) {
    const count = rng.int(5, 60);
    out.push({
      token: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`,
      createdAtMs:
        startMs + (week * 7 + rng.int(0, Math.min(6, days - week * 7 - 1))) * DAY_MS + rng.int(0, DAY_MS - 1),
      count,
      processingMs: count * rng.int(5, 60) * 1000,
      perNumberMicros: 5_000,
    });
  }
  return out;
}

function buildAccount(options: ResolvedSandboxOptions, index: number, masterId: number): SandboxAccount {
  const rng = new Rng(hash32(options.seed, "account", index));
  const id = index === 0 ? masterId : masterId + index * 7;
  const createdAtMs = options.startMs - rng.int(60, 900) * DAY_MS;
  const rawTrunks = buildTrunks(new Rng(hash32(options.seed, "trunks", index)), id, "", createdAtMs);
  const dids = buildDids(rng, id, rawTrunks, options.startMs);
  const trunks = rawTrunks.map((trunk) => ({ ...trunk, callerid: dids[0]!.number }));
  const campaigns = ["spring_sale", "welcome_series", "renewal_reminder", "survey_q3", "black_friday"];
  const shortLinks: SandboxShortLink[] = [];
  const linkCount = rng.int(2, 5);
  for (let l = 0; l < linkCount; l++) {
    shortLinks.push({
      utmCampaign: rng.pick(campaigns),
      linkHash: rng.hex(7),
      phone: dids[l % dids.length]!.number,
    });
  }
  const brands: SandboxBrand[] = [];
  for (let b = 0; b < rng.int(1, 2); b++) {
    brands.push({ brandId: `B${rng.hex(6).toUpperCase()}`, campaignIds: [`C${rng.hex(6).toUpperCase()}`] });
  }
  const companyName = COMPANY_NAMES[index % COMPANY_NAMES.length] ?? `Company ${index}`;
  const role = index === 0 ? "master" : "sub";
  const endMs = options.startMs + options.days * DAY_MS;
  return {
    index,
    id,
    name: index === 0 ? "master" : `sub-${index}`,
    companyName,
    role,
    apiKey: new Rng(hash32(options.seed, "api-key", index)).hex(32),
    userId: 500_000 + id,
    masterId,
    createdAtMs,
    trunks,
    dids,
    shortLinks,
    brands,
    validations: buildValidations(
      new Rng(hash32(options.seed, "validations", index)),
      options.startMs,
      options.days,
    ),
    smsCampaigns: buildSmsCampaigns(options.seed, { index, companyName, shortLinks, dids }),
    recipientCount: recipientPoolSize(options.callsPerDay),
    webhookHistory: buildWebhookHistory(
      options.seed,
      { index, id, role, companyName, createdAtMs },
      options.startMs,
      endMs,
    ),
  };
}

/** True when `dayNumber` (days since the epoch) is one of the world's days with traffic. */
export function isWorldDay(world: SandboxWorld, dayNumber: number): boolean {
  const dayMs = dayNumber * DAY_MS;
  return dayMs >= world.startMs && dayMs < world.endMs;
}

/** Builds the (small, eager) part of the world: accounts, keys, trunks, numbers, links, tokens. */
export function buildWorld(options: ResolvedSandboxOptions): SandboxWorld {
  const masterId = 10_000 + (hash32(options.seed, "master-id") % 80_000);
  const accounts: SandboxAccount[] = [];
  for (let i = 0; i < options.accounts; i++) accounts.push(buildAccount(options, i, masterId));
  return {
    seed: options.seed,
    start: options.start,
    startMs: options.startMs,
    endMs: options.startMs + options.days * DAY_MS,
    days: options.days,
    callsPerDay: options.callsPerDay,
    lateShare: options.lateShare,
    accounts,
  };
}
