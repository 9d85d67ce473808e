import { hash32, Rng } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { recipientPhone } from "./sms-campaigns.js";
import { isWorldDay, type SandboxAccount, type SandboxWorld } from "./world.js";

/** One send of a campaign on one day: to a seeded part of the account's recipient pool. */
export interface Blast {
  /** Index of the campaign in `account.smsCampaigns`. */
  readonly campaign: number;
  readonly startMs: number;
  /** Pool indices of the recipients, in sending order. */
  readonly recipients: Int32Array;
  /** Index within the day of the blast's first message (the day's blasts come first, in campaign order). */
  readonly firstIndex: number;
}

/** Messages a blast submits per second. */
export const BLAST_RATE_PER_SECOND = 25;

/** When the `k`-th message of a blast is submitted. */
export function blastSubmittedAtMs(blast: Blast, k: number): number {
  return blast.startMs + Math.floor(k / BLAST_RATE_PER_SECOND) * 1000;
}

/** Index in the campaign's `linkHashes` of the short link message `k` of a blast carries. */
export function blastLinkIndex(account: SandboxAccount, blast: Blast, k: number): number {
  return k % account.smsCampaigns[blast.campaign]!.linkHashes.length;
}

/** The short link message `k` of a blast carries. */
export function blastLinkHash(account: SandboxAccount, blast: Blast, k: number): string {
  return account.smsCampaigns[blast.campaign]!.linkHashes[blastLinkIndex(account, blast, k)]!;
}

/** The recipient (phone, digits) of message `k` of a blast. */
export function blastRecipient(
  world: SandboxWorld,
  account: SandboxAccount,
  blast: Blast,
  k: number,
): string {
  return recipientPhone(world.seed, account.index, blast.recipients[k]!);
}

/**
 * The campaign sends of an account on a day. Every world day one seeded campaign sends (so clicks
 * come every day), each other campaign with probability 1/4; a send starts at a seeded time
 * between 13:00 and 19:00 UTC and reaches 35-75% of the recipient pool. Pure.
 */
export function blastsOn(world: SandboxWorld, account: SandboxAccount, dayNumber: number): Blast[] {
  const campaigns = account.smsCampaigns.length;
  if (!isWorldDay(world, dayNumber) || campaigns === 0 || account.recipientCount === 0) return [];
  const lead = hash32(world.seed, "blast-lead", account.index, dayNumber) % campaigns;
  const blasts: Blast[] = [];
  let firstIndex = 0;
  for (let c = 0; c < campaigns; c++) {
    const rng = new Rng(hash32(world.seed, "blast", account.index, dayNumber, c));
    if (c !== lead && !rng.chance(0.25)) continue;
    const startMs = dayNumber * DAY_MS + (rng.int(13, 18) * 3600 + rng.int(0, 3599)) * 1000;
    const reach = 0.35 + 0.4 * rng.next();
    const picked: number[] = [];
    for (let i = 0; i < account.recipientCount; i++) if (rng.chance(reach)) picked.push(i);
    blasts.push({ campaign: c, startMs, recipients: Int32Array.from(picked), firstIndex });
    firstIndex += picked.length;
  }
  return blasts;
}
