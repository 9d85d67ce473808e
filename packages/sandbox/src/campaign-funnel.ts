import { blastLinkIndex, blastRecipient, blastSubmittedAtMs, blastsOn } from "./campaign-blasts.js";
import { drawOutboundFate, messageRng } from "./generate-message.js";
import { mix32, Rng } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { recipientPhone } from "./sms-campaigns.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** A click on a campaign's short link by a phone the campaign's message was delivered to. */
export interface FunnelClick {
  readonly createdAtMs: number;
  readonly phone: string;
  readonly utmCampaign: string;
  readonly linkHash: string;
  /** The message clicked on: the day it was submitted and its index (they seed the click's details). */
  readonly messageDay: number;
  readonly messageIndex: number;
}

/** An answered call a clicker places to one of the account's numbers after clicking. */
export interface Conversion {
  /** Call start, whole seconds, 1 min to 48 h after the click. */
  readonly startMs: number;
  readonly phone: string;
  /** Index of the called number in `account.dids`. */
  readonly didIndex: number;
  readonly messageDay: number;
  readonly messageIndex: number;
}

/**
 * What the campaign sends of one day lead to, whenever it happens: the clicks, stored compactly
 * (one entry per click in each array; phones are derived from the recipient pool on demand, so a
 * 90-day world of 20,000 calls a day keeps its funnel in a few MB), and the conversion calls.
 */
export interface FunnelDay {
  readonly dayNumber: number;
  readonly clickCount: number;
  readonly clickAtMs: Float64Array;
  /** Index within the day of the message clicked on. */
  readonly clickMessage: Int32Array;
  /** Recipient pool index of the clicker. */
  readonly clickRecipient: Int32Array;
  /** Campaign index in `account.smsCampaigns`. */
  readonly clickCampaign: Uint8Array;
  /** Link index in the campaign's `linkHashes`. */
  readonly clickLink: Uint8Array;
  readonly conversions: readonly Conversion[];
}

/** Latest click after a message was submitted (a delivery report 60 h late, then a click 48 h later), in days. */
const CLICK_LOOKBACK_DAYS = 6;
/** Latest conversion call after a message was submitted (48 h after the latest click), in days. */
const CONVERSION_LOOKBACK_DAYS = 8;
const CLICK_SALT = 0xc11c;
const HOUR_S = 3600;

/** A log-normal delay in whole seconds: median `medianS`, clamped to [minS, maxS]. */
function delayS(rng: Rng, medianS: number, sigma: number, minS: number, maxS: number): number {
  return Math.min(maxS, Math.max(minS, Math.round(Math.exp(Math.log(medianS) + sigma * rng.normal()))));
}

/**
 * The clicks and conversion calls that the campaign sends of `dayNumber` lead to. A recipient
 * clicks the link of a delivered message with the campaign's click share (15-30%), 5 s to 48 h
 * after its delivery (median 40 min); a clicker calls one of the account's numbers (the campaign's
 * sender when it is a number, else a seeded one) with the campaign's conversion share (10-20%),
 * 1 min to 48 h after the click (median 3 h), and the call is answered. The click is drawn first
 * from its own generator, so only clickers' messages need their fate drawn. Pure.
 */
export function funnelOfBlastDay(world: SandboxWorld, account: SandboxAccount, dayNumber: number): FunnelDay {
  const at: number[] = [];
  const messages: number[] = [];
  const recipients: number[] = [];
  const campaigns: number[] = [];
  const links: number[] = [];
  const conversions: Conversion[] = [];
  for (const blast of blastsOn(world, account, dayNumber)) {
    const campaign = account.smsCampaigns[blast.campaign]!;
    const senderDid = account.dids.findIndex((d) => d.number === campaign.sender);
    for (let k = 0; k < blast.recipients.length; k++) {
      const index = blast.firstIndex + k;
      const rng = new Rng(mix32(world.seed ^ CLICK_SALT, account.index, dayNumber, index));
      if (!rng.chance(campaign.clickShare)) continue;
      const fate = drawOutboundFate(messageRng(world.seed, account.index, dayNumber, index));
      if (fate.finalStatus !== "delivered") continue;
      const deliveredAtMs = blastSubmittedAtMs(blast, k) + fate.finalAfterMs;
      const createdAtMs = deliveredAtMs + delayS(rng, 2400, 1.2, 5, 48 * HOUR_S) * 1000 + rng.int(0, 999);
      at.push(createdAtMs);
      messages.push(index);
      recipients.push(blast.recipients[k]!);
      campaigns.push(blast.campaign);
      links.push(blastLinkIndex(account, blast, k));
      if (!rng.chance(campaign.conversionShare)) continue;
      const didIndex = senderDid >= 0 ? senderDid : rng.int(0, account.dids.length - 1);
      const startMs =
        Math.ceil(createdAtMs / 1000) * 1000 + delayS(rng, 3 * HOUR_S, 1, 60, 48 * HOUR_S) * 1000;
      const phone = blastRecipient(world, account, blast, k);
      conversions.push({ startMs, phone, didIndex, messageDay: dayNumber, messageIndex: index });
    }
  }
  return {
    dayNumber,
    clickCount: at.length,
    clickAtMs: Float64Array.from(at),
    clickMessage: Int32Array.from(messages),
    clickRecipient: Int32Array.from(recipients),
    clickCampaign: Uint8Array.from(campaigns),
    clickLink: Uint8Array.from(links),
    conversions,
  };
}

/** Where funnel days come from: computed on demand (pure) or from a {@link FunnelStore}. */
export type FunnelSource = (dayNumber: number) => FunnelDay;

/** A pure funnel source for one account (recomputes every day it is asked). */
export function pureFunnel(world: SandboxWorld, account: SandboxAccount): FunnelSource {
  return (dayNumber) => funnelOfBlastDay(world, account, dayNumber);
}

/** The clicks made on `dayNumber` (UTC), from the sends of that day and the days before, unordered. */
export function clicksOn(
  world: SandboxWorld,
  account: SandboxAccount,
  funnel: FunnelSource,
  dayNumber: number,
): FunnelClick[] {
  const clicks: FunnelClick[] = [];
  for (let day = dayNumber - CLICK_LOOKBACK_DAYS; day <= dayNumber; day++) {
    const f = funnel(day);
    for (let i = 0; i < f.clickCount; i++) {
      const createdAtMs = f.clickAtMs[i]!;
      if (Math.floor(createdAtMs / DAY_MS) !== dayNumber) continue;
      const campaign = account.smsCampaigns[f.clickCampaign[i]!]!;
      clicks.push({
        createdAtMs,
        phone: recipientPhone(world.seed, account.index, f.clickRecipient[i]!),
        utmCampaign: campaign.utmCampaign,
        linkHash: campaign.linkHashes[f.clickLink[i]!]!,
        messageDay: day,
        messageIndex: f.clickMessage[i]!,
      });
    }
  }
  return clicks;
}

/** The conversion calls that start on `dayNumber` (UTC), by start, then the message they follow. */
export function conversionsOn(funnel: FunnelSource, dayNumber: number): Conversion[] {
  const calls: Conversion[] = [];
  for (let day = dayNumber - CONVERSION_LOOKBACK_DAYS; day <= dayNumber; day++) {
    for (const call of funnel(day).conversions)
      if (Math.floor(call.startMs / DAY_MS) === dayNumber) calls.push(call);
  }
  return calls.sort(
    (a, b) => a.startMs - b.startMs || a.messageDay - b.messageDay || a.messageIndex - b.messageIndex,
  );
}

const MAX_DAYS = 4096;

/** Funnel days per (account, day), computed on demand and cached (they are small). */
export class FunnelStore {
  private readonly days = new Map<string, FunnelDay>();

  constructor(private readonly world: SandboxWorld) {}

  /** The funnel source of one account, through the cache. */
  of(account: SandboxAccount): FunnelSource {
    return (dayNumber) => {
      const key = `${account.index}:${dayNumber}`;
      let day = this.days.get(key);
      if (!day) {
        if (this.days.size >= MAX_DAYS) this.days.clear();
        day = funnelOfBlastDay(this.world, account, dayNumber);
        this.days.set(key, day);
      }
      return day;
    };
  }
}
