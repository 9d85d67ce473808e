import type { CallWebhook } from "../platform/call.js";
import type { SipTrunk } from "../platform/sip-trunk.js";
import type { SubAccount } from "../platform/sub-account.js";
import { hash32 } from "./prng.js";
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
  private readonly webhooks = new Map<number, CallWebhook[]>();
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
      const hooks: CallWebhook[] = [
        { event_type: "post-call", url: `https://hooks.example.com/${account.id}/post-call` },
      ];
      if (account.role === "master")
        hooks.push({ event_type: "on-call", url: `https://hooks.example.com/${account.id}/on-call` });
      this.webhooks.set(account.index, hooks);
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

  /** The account's call webhooks. */
  webhooksOf(account: SandboxAccount): CallWebhook[] {
    return this.webhooks.get(account.index)!;
  }

  /** Removes the webhook of a kind; false when none was configured. */
  deleteWebhook(account: SandboxAccount, eventType: string): boolean {
    const hooks = this.webhooksOf(account);
    const kept = hooks.filter((h) => h.event_type !== eventType);
    this.webhooks.set(account.index, kept);
    return kept.length !== hooks.length;
  }

  /** Review state of a campaign (seeded). */
  campaignStatus(campaignId: string): CampaignStatus {
    const states: CampaignStatus[] = ["PENDING", "REJECTED", "ACTIVE"];
    return states[hash32(this.world.seed, "campaign", campaignId) % 3]!;
  }
}
