import { formatMicros } from "./money.js";
import { brandsOf } from "./routes/ten-dlc-routes.js";
import { formatDay } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";

/** Public description of an account (admin API, CLI banner, library callers). */
export interface AccountView {
  readonly name: string;
  readonly id: number;
  readonly role: "master" | "sub";
  readonly company_name: string;
  readonly api_key: string;
  readonly user_id: number;
  readonly sip_trunks: readonly string[];
  readonly numbers: readonly string[];
  readonly brand_ids: readonly string[];
  readonly validation_tokens: readonly string[];
}

/** `GET /_sandbox/world`: the accounts and keys, the clock, and the seeded invoice discrepancies. */
export function worldView(runtime: SandboxRuntime): Record<string, unknown> {
  const { world, options } = runtime;
  return {
    seed: world.seed,
    start: world.start,
    days: world.days,
    end: formatDay(world.endMs),
    calls_per_day: world.callsPerDay,
    late_share: world.lateShare,
    max_per_page: options.maxPerPage,
    shuffle: options.shuffle,
    faults: runtime.faults.profile.name,
    rate_limit: options.rateLimit,
    api_revision: options.apiRevision,
    drop_deprecated: options.dropDeprecated,
    clock_skew_ms: options.clockSkewMs,
    speech_analytics: options.speechAnalytics,
    clock: { now: new Date(runtime.clock.now()).toISOString(), real: runtime.clock.isReal },
    accounts: world.accounts.map((account) => ({
      ...accountView(account),
      brands: brandsOf(runtime, account),
      dids: account.dids.map((d) => ({ id: d.id, number: d.number, sms_enabled: d.smsEnabled })),
      sub_account_status: runtime.state.subAccount(account).status,
      sms_campaigns: account.smsCampaigns.map((c) => ({
        utm_campaign: c.utmCampaign,
        sender: c.sender,
        message_type: c.messageType,
        link_hashes: c.linkHashes,
      })),
      recipient_pool: account.recipientCount,
      call_webhook_history: account.webhookHistory.map((change) => ({
        at: new Date(change.atMs).toISOString(),
        event_type: change.eventType,
        url: change.url,
      })),
    })),
    invoice_discrepancies: runtime.invoices.invoices
      .filter((invoice) => invoice.discrepancy)
      .map((invoice) => ({
        account: invoice.account,
        invoice_id: invoice.id,
        month: invoice.month,
        delta: formatMicros(invoice.deltaMicros),
        issued: invoice.issuedAtMs <= runtime.clock.now(),
      })),
  };
}

/** The public view of one account. */
export function accountView(account: SandboxRuntime["world"]["accounts"][number]): AccountView {
  return {
    name: account.name,
    id: account.id,
    role: account.role,
    company_name: account.companyName,
    api_key: account.apiKey,
    user_id: account.userId,
    sip_trunks: account.trunks.map((t) => t.name),
    numbers: account.dids.map((d) => d.number),
    brand_ids: account.brands.map((b) => b.brandId),
    validation_tokens: account.validations.map((v) => v.token),
  };
}
