import type { MessageType } from "@telecom-etl/platform/message.js";
import { NANP_CUSTOMER_AREA_CODES } from "./catalog.js";
import { hash32, Rng } from "./prng.js";

/** An SMS/MMS campaign of an account: one per distinct `utm_campaign` of its short links. */
export interface SandboxSmsCampaign {
  /** The campaign's name: the messages' `tag` and the clicks' `utm_campaign`. */
  readonly utmCampaign: string;
  /** Hashes of the campaign's short links; a message carries one of them in its text. */
  readonly linkHashes: readonly string[];
  /** The sender: an SMS-enabled number of the account (digits) or an alphanumeric sender id. */
  readonly sender: string;
  readonly messageType: MessageType;
  /** The text with `{link}` where the short link goes. */
  readonly template: string;
  /** Share of delivered recipients who click the link. */
  readonly clickShare: number;
  /** Share of clickers who then call one of the account's numbers (an answered call). */
  readonly conversionShare: number;
}

/** What the campaigns of an account are built from. */
interface CampaignAccount {
  readonly index: number;
  readonly companyName: string;
  readonly shortLinks: readonly { readonly utmCampaign: string; readonly linkHash: string }[];
  readonly dids: readonly { readonly number: string; readonly smsEnabled: boolean }[];
}

const TEMPLATES: Readonly<Record<string, string>> = {
  spring_sale:
    "{company}: Spring sale! 20% off all services this week. Book now: {link} Reply STOP to opt out",
  welcome_series:
    "Welcome to {company}! We're glad to have you. Save this number to reach us any time, and see " +
    "everything we can do for you here: {link} Msg&data rates may apply. Reply HELP for help, STOP to opt out.",
  renewal_reminder:
    "{company} reminder: your plan renews soon. Review or change it: {link} Reply STOP to opt out",
  survey_q3:
    "Hi from {company}! We're always trying to do better, and your opinion matters a lot to us. Could " +
    "you spare two minutes for our quarterly survey? Every answer is read by our team, and as a thank " +
    "you, everyone who completes it gets a $10 credit on their next bill. Start here: {link} " +
    "Reply STOP to opt out.",
  black_friday:
    "{company} Black Friday: our biggest discounts of the year start now and end Monday at midnight. " +
    "Don't miss out: {link} Reply STOP to opt out",
};

/** The alphanumeric sender id of an account: the first word of its company name, upper case, at most 11 characters. */
export function alphanumericSender(companyName: string): string {
  return (companyName.split(" ")[0] ?? "INFO")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .slice(0, 11);
}

/**
 * The account's campaigns, in order of first appearance of their `utm_campaign` among its short
 * links. A campaign sends from one of the account's SMS-enabled numbers (75%) or, and always when
 * it has none, from its alphanumeric sender id; 20% of campaigns send MMS.
 */
export function buildSmsCampaigns(seed: number, account: CampaignAccount): SandboxSmsCampaign[] {
  const rng = new Rng(hash32(seed, "sms-campaigns", account.index));
  const smsNumbers = account.dids.filter((d) => d.smsEnabled).map((d) => d.number);
  const names = [...new Set(account.shortLinks.map((l) => l.utmCampaign))];
  return names.map((name) => {
    const fromNumber = smsNumbers.length > 0 && rng.chance(0.75);
    const sender = fromNumber ? rng.pick(smsNumbers) : alphanumericSender(account.companyName);
    return {
      utmCampaign: name,
      linkHashes: account.shortLinks.filter((l) => l.utmCampaign === name).map((l) => l.linkHash),
      sender,
      messageType: rng.chance(0.2) ? "mms" : "sms",
      template: (TEMPLATES[name] ?? "{company}: news for you {link} Reply STOP to opt out").replace(
        "{company}",
        account.companyName,
      ),
      clickShare: 0.15 + 0.15 * rng.next(),
      conversionShare: 0.1 + 0.1 * rng.next(),
    };
  });
}

/**
 * How many phones an account's campaigns reach (its recipient pool): half the mean daily calls,
 * at least 60; none in a world without traffic.
 */
export function recipientPoolSize(callsPerDay: number): number {
  return callsPerDay === 0 ? 0 : Math.max(60, Math.round(callsPerDay / 2));
}

/**
 * Phone number `n` of an account's recipient pool (digits, US or Canada, a real area code): who
 * receives campaigns and clicks their links.
 */
export function recipientPhone(seed: number, accountIndex: number, n: number): string {
  const areaCode =
    NANP_CUSTOMER_AREA_CODES[hash32(seed, "recipient", accountIndex, n) % NANP_CUSTOMER_AREA_CODES.length]!;
  // n times a prime coprime to 8,000,000, plus the account's offset: distinct n, distinct local numbers.
  const offset = hash32(seed, "recipient-offset", accountIndex) % 8_000_000;
  return `1${areaCode}${2_000_000 + ((n * 104_729 + offset) % 8_000_000)}`;
}
