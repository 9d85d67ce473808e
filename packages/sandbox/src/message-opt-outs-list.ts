import { blastRecipient, blastSubmittedAtMs, blastsOn } from "./campaign-blasts.js";
import { drawOutboundFate, messageRng } from "./generate-message.js";
import { mix32, Rng } from "./prng.js";
import { arraySource, type PageRow } from "./routes/page-body.js";
import { askedDays, defineSandboxList } from "./sandbox-list.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** One opt-out as the list serves it, with what orders it within its day. */
interface OptOut {
  readonly createdAtMs: number;
  readonly phone: string;
  readonly senderId: string | null;
  readonly campaignId: string | null;
  /** The campaign message it answers: its day and index (a stable tie-break). */
  readonly messageDay: number;
  readonly messageIndex: number;
}

/** Share of delivered campaign messages whose recipient opts out (replies STOP). */
const OPT_OUT_SHARE = 0.04;
/** Share of opt-outs from every sender of the account (`sender_id` null: STOP ALL). */
const ALL_SENDERS_SHARE = 0.2;
/** Latest opt-out after its message was submitted: a 60 h late delivery report, then 20 h, in days. */
const LOOKBACK_DAYS = 4;
const OPT_OUT_SALT = 0x0970;

/**
 * The 10DLC campaign a campaign sending from a number is registered under (its index among the
 * account's brand campaigns); null for an alphanumeric sender (10DLC registers numbers only) or
 * an account without registered campaigns.
 */
function tenDlcCampaign(account: SandboxAccount, campaign: number): string | null {
  const ids = account.brands.flatMap((brand) => brand.campaignIds);
  const sender = account.smsCampaigns[campaign]!.sender;
  return ids.length === 0 || !/^\d+$/.test(sender) ? null : ids[campaign % ids.length]!;
}

/**
 * The opt-outs that the campaign sends of `dayNumber` lead to, whenever they happen: a recipient
 * of a delivered message opts out with {@link OPT_OUT_SHARE}, 30 s to 20 h after its delivery
 * (median 20 min), of the campaign's sender or, for {@link ALL_SENDERS_SHARE} of them, of every
 * sender. Drawn from a generator of its own, so clicks and messages are unchanged. Pure.
 */
function optOutsOfBlastDay(world: SandboxWorld, account: SandboxAccount, dayNumber: number): OptOut[] {
  const optOuts: OptOut[] = [];
  for (const blast of blastsOn(world, account, dayNumber)) {
    const campaign = account.smsCampaigns[blast.campaign]!;
    for (let k = 0; k < blast.recipients.length; k++) {
      const index = blast.firstIndex + k;
      const rng = new Rng(mix32(world.seed ^ OPT_OUT_SALT, account.index, dayNumber, index));
      if (!rng.chance(OPT_OUT_SHARE)) continue;
      const fate = drawOutboundFate(messageRng(world.seed, account.index, dayNumber, index));
      if (fate.finalStatus !== "delivered") continue;
      const delayS = Math.min(
        72_000,
        Math.max(30, Math.round(Math.exp(Math.log(1200) + 1.3 * rng.normal()))),
      );
      optOuts.push({
        createdAtMs: blastSubmittedAtMs(blast, k) + fate.finalAfterMs + delayS * 1000,
        phone: blastRecipient(world, account, blast, k),
        senderId: rng.chance(ALL_SENDERS_SHARE) ? null : campaign.sender,
        campaignId: tenDlcCampaign(account, blast.campaign),
        messageDay: dayNumber,
        messageIndex: index,
      });
    }
  }
  return optOuts;
}

/** Every opt-out made on `dayNumber` (UTC), in order of time, then of the message it answers. */
function optOutsOn(world: SandboxWorld, account: SandboxAccount, dayNumber: number): OptOut[] {
  const found: OptOut[] = [];
  for (let day = dayNumber - LOOKBACK_DAYS; day <= dayNumber; day++)
    for (const optOut of optOutsOfBlastDay(world, account, day))
      if (Math.floor(optOut.createdAtMs / DAY_MS) === dayNumber) found.push(optOut);
  return found.sort(
    (a, b) => a.createdAtMs - b.createdAtMs || a.messageDay - b.messageDay || a.messageIndex - b.messageIndex,
  );
}

/** The opt-out as the platform lists it. */
function serialize(optOut: OptOut): string {
  return JSON.stringify({
    phone_number: optOut.phone,
    sender_id: optOut.senderId,
    campaign_id: optOut.campaignId,
    created_at: new Date(optOut.createdAtMs).toISOString().replace(".000Z", "Z"),
  });
}

/**
 * Message opt-outs (`GET /v3/messages/opt-outs`): the account's opt-outs by UTC day of
 * `created_at`, visible once made, from recipients of its delivered campaign messages (so their
 * numbers, senders and 10DLC campaign ids are the messages world's); window optional; filters
 * `sender_id` and `campaign_id` (exact matches, empty values ignored). A row's fault identity is
 * its day and its place in the day's whole list (the same whatever the clock hides).
 */
export const messageOptOutsList = defineSandboxList({
  route: "generic",
  window: "optional",
  truth: true,
  select(ask) {
    const { runtime, account, nowMs, query } = ask;
    const sender = query?.get("sender_id") || null;
    const campaign = query?.get("campaign_id") || null;
    const rows: PageRow[] = [];
    for (const day of askedDays(ask)) {
      optOutsOn(runtime.world, account, day).forEach((optOut, index) => {
        if (optOut.createdAtMs > nowMs) return;
        if (sender !== null && optOut.senderId !== sender) return;
        if (campaign !== null && optOut.campaignId !== campaign) return;
        rows.push({ json: serialize(optOut), day, index });
      });
    }
    return arraySource(rows);
  },
  // An opt-out answers a campaign message: one to its number from its sender (from any sender when
  // it opted out of all of them) is in the messages' truth at the same clock.
  references: [
    {
      parent: "messages",
      through: "list",
      childKey: (l) => (typeof l.sender_id === "string" ? `${String(l.phone_number)} ${l.sender_id}` : null),
      parentKey: (l) => (l.direction === "outbound" ? `${String(l.to)} ${String(l.from)}` : null),
    },
    {
      parent: "messages",
      through: "list",
      childKey: (l) => (l.sender_id === null ? String(l.phone_number) : null),
      parentKey: (l) => (l.direction === "outbound" ? String(l.to) : null),
    },
  ],
});
