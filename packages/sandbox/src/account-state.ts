import type { CallWebhook, CallWebhookEventType } from "@telecom-etl/platform/call.js";
import type { SipTrunk } from "@telecom-etl/platform/sip-trunk.js";
import type { SubAccount } from "@telecom-etl/platform/sub-account.js";
import { hash32 } from "./prng.js";
import { webhooksAt } from "./webhook-history.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** Settings of an owned number that `PUT /v1/mydids/{id}` can change. */
export interface DidSettings {
  callRecordingEnabled: boolean;
  transcriptionEnabled: boolean;
  transcriptionThreshold: number;
  smsRelayUrl: string | null;
  callStatusUrl: string | null;
}

/** Review states of a 10DLC campaign (what a nudge may ask for depends on it). */
export type CampaignStatus = "PENDING" | "REJECTED" | "ACTIVE";

/**
 * Everything the platform API can change in the world: sub-account settings, number settings,
 * created trunks, carts, call webhooks, campaign nudges. Changes never rewrite generated history
 * (CDRs already generated keep the settings the world was seeded with).
 */
export class AccountState {
  private readonly subAccounts = new Map<number, SubAccount>();
  private readonly didSettings = new Map<number, DidSettings>();
  /** Webhook kinds deleted through the API, per account, with the sandbox time of the deletion. */
  private readonly webhookDeletions = new Map<number, Map<CallWebhookEventType, number>>();
  readonly createdTrunks = new Map<number, SipTrunk[]>();
  readonly carts = new Map<number, Set<string>>();
  readonly nudgedAtMs = new Map<string, number>();
  private counter = 0;

  constructor(private readonly world: SandboxWorld) {
    for (const account of world.accounts) {
      this.subAccounts.set(account.index, {
        id: account.id,
        created_at: new Date(account.createdAtMs).toISOString().slice(0, 19) + "Z",
        name: account.companyName,
        api_key: account.apiKey,
        master_organization: account.masterId,
        status: "enabled",
        default_destinations: {
          sms_endpoint: `https://hooks.example.com/${account.id}/sms`,
          dlr_endpoint: `https://hooks.example.com/${account.id}/dlr`,
        },
      });
    }
  }

  /** A fresh number for ids and seeds of created objects. */
  next(): number {
    this.counter += 1;
    return this.counter;
  }

  /** The sub-account record of an account. */
  subAccount(account: SandboxAccount): SubAccount {
    return this.subAccounts.get(account.index)!;
  }

  /** Replaces the sub-account record. */
  setSubAccount(account: SandboxAccount, value: SubAccount): void {
    this.subAccounts.set(account.index, value);
  }

  /** False once a sub-account was disabled (its key then gets 403). */
  isEnabled(account: SandboxAccount): boolean {
    return this.subAccount(account).status === "enabled";
  }

  /** Current settings of an owned number. */
  didSettingsOf(account: SandboxAccount, didId: number): DidSettings | undefined {
    const known = this.didSettings.get(didId);
    if (known) return known;
    const did = account.dids.find((d) => d.id === didId);
    if (!did) return undefined;
    return {
      callRecordingEnabled: did.recording,
      transcriptionEnabled: did.transcription,
      transcriptionThreshold: did.transcriptionThreshold,
      smsRelayUrl: null,
      callStatusUrl: null,
    };
  }

  /** Stores new settings of an owned number. */
  setDidSettings(didId: number, settings: DidSettings): void {
    this.didSettings.set(didId, settings);
  }

  /** The account's call webhooks at `nowMs`: its seeded history, less the kinds the API deleted by then. */
  webhooksOf(account: SandboxAccount, nowMs: number): CallWebhook[] {
    return webhooksAt(account.webhookHistory, this.webhookDeletions.get(account.index) ?? new Map(), nowMs);
  }

  /** Deletes the webhook of a kind at `nowMs` (for good); false when none is configured then. */
  deleteWebhook(account: SandboxAccount, eventType: CallWebhookEventType, nowMs: number): boolean {
    if (!this.webhooksOf(account, nowMs).some((h) => h.event_type === eventType)) return false;
    const deletions = this.webhookDeletions.get(account.index) ?? new Map<CallWebhookEventType, number>();
    deletions.set(eventType, nowMs);
    this.webhookDeletions.set(account.index, deletions);
    return true;
  }

  /** Review state of a campaign (seeded). */
  campaignStatus(campaignId: string): CampaignStatus {
    const states: CampaignStatus[] = ["PENDING", "REJECTED", "ACTIVE"];
    return states[hash32(this.world.seed, "campaign", campaignId) % 3]!;
  }
}
