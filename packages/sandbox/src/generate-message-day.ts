import type { MessageType } from "@telecom-etl/platform/message.js";
import { blastLinkHash, blastRecipient, blastSubmittedAtMs, blastsOn } from "./campaign-blasts.js";
import { HOURLY_WEIGHTS, NANP_CUSTOMER_AREA_CODES, WEEKDAY_FACTORS } from "./catalog.js";
import {
  buildMessage,
  fateCostMicros,
  type MessageSpec,
  messageFate,
  messagePricing,
  type SandboxMessage,
  segmentsOf,
} from "./generate-message.js";
import { hash32, Rng, unitHash, weightedTable } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { alphanumericSender } from "./sms-campaigns.js";
import { isWorldDay, type SandboxAccount, type SandboxWorld } from "./world.js";

const HOURS = weightedTable(
  HOURLY_WEIGHTS.map((_, h) => h),
  HOURLY_WEIGHTS,
);

const TRANSACTIONAL = [
  "{company}: your appointment is confirmed for {date} at {time}. Reply C to confirm or R to reschedule.",
  "Your {company} verification code is {code}. It expires in 10 minutes.",
  "{company}: your order #{order} has shipped and should arrive within 2 business days. Track it any " +
    "time in your account, or reply HELP if anything looks wrong with your delivery.",
  "{company}: we received your payment of {amount} USD. Thank you!",
] as const;
const INBOUND = [
  "Yes",
  "C",
  "STOP",
  "What are your opening hours?",
  "Can I move my appointment to Friday afternoon?",
  "Thanks, got it!",
  "Hi, I never received the confirmation email you mentioned on the phone yesterday, could you send " +
    "it again to the address on my account? Also, is parking available near your office?",
] as const;

/** Link of a short link in a message text. */
export function shortLinkUrl(linkHash: string): string {
  return `https://sbx.link/${linkHash}`;
}

/** A customer's US or Canadian phone number (digits) with a real area code, drawn at random. */
function customerPhone(rng: Rng): string {
  const areaCode = NANP_CUSTOMER_AREA_CODES[rng.int(201, 989) % NANP_CUSTOMER_AREA_CODES.length]!;
  return `1${areaCode}${rng.int(2, 9)}${rng.digits(6)}`;
}

/** Messages of a day outside campaigns: a share of the mean daily calls, by weekday, ±20%. */
function dailyCount(world: SandboxWorld, account: SandboxAccount, dayNumber: number, share: number): number {
  const noise = 0.8 + 0.4 * unitHash(world.seed, "message-volume", account.index, dayNumber, share);
  return Math.round(world.callsPerDay * share * (WEEKDAY_FACTORS[(dayNumber + 4) % 7] ?? 1) * noise);
}

/** The campaign messages of a day, in index order. */
function campaignSpecs(world: SandboxWorld, account: SandboxAccount, dayNumber: number): MessageSpec[] {
  const specs: MessageSpec[] = [];
  for (const blast of blastsOn(world, account, dayNumber)) {
    const campaign = account.smsCampaigns[blast.campaign]!;
    for (let k = 0; k < blast.recipients.length; k++) {
      specs.push({
        direction: "outbound",
        type: campaign.messageType,
        from: campaign.sender,
        to: blastRecipient(world, account, blast, k),
        text: campaign.template.replace("{link}", shortLinkUrl(blastLinkHash(account, blast, k))),
        media:
          campaign.messageType === "mms"
            ? [`https://media.sandbox.test/${account.id}/${campaign.utmCampaign}.jpg`]
            : null,
        tag: campaign.utmCampaign,
        submittedAtMs: blastSubmittedAtMs(blast, k),
      });
    }
  }
  return specs;
}

/**
 * Transactional messages (`tag` null: confirmations, codes, shipping notices, 5% MMS receipts) from
 * an SMS-enabled number of the account, or its alphanumeric sender id when it has none, to
 * customers; and inbound messages from customers to the account's SMS-enabled numbers (10% MMS).
 */
function dailySpecs(world: SandboxWorld, account: SandboxAccount, dayNumber: number): MessageSpec[] {
  const rng = new Rng(hash32(world.seed, "message-day", account.index, dayNumber));
  const smsNumbers = account.dids.filter((d) => d.smsEnabled).map((d) => d.number);
  const at = () => dayNumber * DAY_MS + (rng.fromTable(HOURS) * 3600 + rng.int(0, 3599)) * 1000;
  const specs: MessageSpec[] = [];
  for (let i = dailyCount(world, account, dayNumber, 0.05); i > 0; i--) {
    const submittedAtMs = at();
    const type: MessageType = rng.chance(0.05) ? "mms" : "sms";
    const text =
      type === "mms"
        ? `${account.companyName}: here is your receipt.`
        : rng
            .pick(TRANSACTIONAL)
            .replace("{company}", account.companyName)
            .replace("{date}", new Date(submittedAtMs + DAY_MS).toISOString().slice(0, 10))
            .replace("{time}", `${rng.int(8, 17)}:${rng.pick(["00", "15", "30", "45"])}`)
            .replace("{code}", rng.digits(6))
            .replace("{order}", String(rng.int(10_000, 99_999)))
            .replace("{amount}", `${rng.int(10, 400)}.${rng.digits(2)}`);
    specs.push({
      direction: "outbound",
      type,
      from: smsNumbers.length > 0 ? rng.pick(smsNumbers) : alphanumericSender(account.companyName),
      to: customerPhone(rng),
      text,
      media: type === "mms" ? [`https://media.sandbox.test/${account.id}/receipt-${rng.hex(8)}.png`] : null,
      tag: null,
      submittedAtMs,
    });
  }
  if (smsNumbers.length === 0) return specs;
  for (let i = dailyCount(world, account, dayNumber, 0.03); i > 0; i--) {
    const submittedAtMs = at();
    const type: MessageType = rng.chance(0.1) ? "mms" : "sms";
    specs.push({
      direction: "inbound",
      type,
      from: customerPhone(rng),
      to: rng.pick(smsNumbers),
      text: type === "mms" ? "Here is a photo of the issue" : rng.pick(INBOUND),
      media: type === "mms" ? [`https://media.sandbox.test/inbound/${account.id}/${rng.hex(8)}.jpg`] : null,
      tag: null,
      submittedAtMs,
    });
  }
  return specs;
}

/** Orders messages by `submitted_at`, then id: the serving order within a day. */
export function compareMessages(a: SandboxMessage, b: SandboxMessage): number {
  return a.submittedAtMs - b.submittedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Every message of one account submitted on one day, both directions, in serving order: the
 * day's campaign sends first in index order (see campaign-blasts.ts), then transactional and
 * inbound messages. Pure: the same world, account and day always give the same messages.
 */
export function generateMessageDay(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
): SandboxMessage[] {
  if (!isWorldDay(world, dayNumber)) return [];
  const specs = [...campaignSpecs(world, account, dayNumber), ...dailySpecs(world, account, dayNumber)];
  return specs
    .map((spec, index) => buildMessage({ seed: world.seed, account: account.index, dayNumber, index }, spec))
    .sort(compareMessages);
}

/**
 * What the messages of one account submitted on one day cost once final (final charges plus carrier
 * fees of delivered messages), micro-dollars: the sum of `messageCostMicros` over
 * {@link generateMessageDay}, computed from the messages' fates without building them (a
 * campaign's texts all have the same length, so the same segments).
 */
export function messageDayCostMicros(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
): number {
  if (!isWorldDay(world, dayNumber)) return 0;
  let micros = 0;
  let index = 0;
  for (const blast of blastsOn(world, account, dayNumber)) {
    const campaign = account.smsCampaigns[blast.campaign]!;
    const text = campaign.template.replace("{link}", shortLinkUrl(campaign.linkHashes[0]!));
    const pricing = messagePricing(campaign.messageType, "outbound", segmentsOf(campaign.messageType, text));
    for (let k = 0; k < blast.recipients.length; k++, index++) {
      const fate = messageFate({ seed: world.seed, account: account.index, dayNumber, index }, "outbound");
      micros += fateCostMicros(fate.finalStatus, pricing);
    }
  }
  for (const spec of dailySpecs(world, account, dayNumber)) {
    const fate = messageFate({ seed: world.seed, account: account.index, dayNumber, index }, spec.direction);
    const pricing = messagePricing(spec.type, spec.direction, segmentsOf(spec.type, spec.text));
    micros += fateCostMicros(fate.finalStatus, pricing);
    index += 1;
  }
  return micros;
}
