import {
  CALL_WEBHOOK_EVENT_TYPES,
  type CallWebhook,
  type CallWebhookEventType,
} from "@telecom-etl/platform/call.js";
import { hash32, Rng } from "./prng.js";

/** One change of an account's call webhooks: from `atMs` on, the webhook of `eventType` has `url` (null: none). */
export interface WebhookChange {
  readonly atMs: number;
  readonly eventType: CallWebhookEventType;
  readonly url: string | null;
}

/** What the history of an account's webhooks depends on. */
interface HistoryAccount {
  readonly index: number;
  readonly id: number;
  readonly role: "master" | "sub";
  readonly companyName: string;
  readonly createdAtMs: number;
}

/**
 * The seeded history of an account's call webhooks over sandbox time (world days `[startMs,
 * endMs)`, L long): `post-call` exists from the account's creation and changes its URL once or
 * twice (20-50% and, for half the accounts, 50-80% into the world); `on-call` exists from creation
 * on the master and is added 10-40% into the world on a sub-account; it is deleted 55-70% into the
 * world and, on the master only, configured again with a new URL 75-95% into it. Instants are
 * whole seconds, sorted.
 */
export function buildWebhookHistory(
  seed: number,
  account: HistoryAccount,
  startMs: number,
  endMs: number,
): WebhookChange[] {
  const rng = new Rng(hash32(seed, "webhook-history", account.index));
  const span = endMs - startMs;
  const at = (from: number, to: number) =>
    Math.floor((startMs + span * (from + (to - from) * rng.next())) / 1000) * 1000;
  const slug = account.companyName.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const url = (host: string, kind: CallWebhookEventType) => `https://${host}/${account.id}/${kind}`;
  const changes: WebhookChange[] = [
    { atMs: account.createdAtMs, eventType: "post-call", url: url("hooks.example.com", "post-call") },
    { atMs: at(0.2, 0.5), eventType: "post-call", url: url("hooks-v2.example.com", "post-call") },
  ];
  if (rng.chance(0.5)) {
    changes.push({
      atMs: at(0.5, 0.8),
      eventType: "post-call",
      url: `https://${slug}.example.net/telephony/post-call`,
    });
  }
  const onCall = url("hooks.example.com", "on-call");
  changes.push({
    atMs: account.role === "master" ? account.createdAtMs : at(0.1, 0.4),
    eventType: "on-call",
    url: onCall,
  });
  changes.push({ atMs: at(0.55, 0.7), eventType: "on-call", url: null });
  if (account.role === "master") {
    changes.push({ atMs: at(0.75, 0.95), eventType: "on-call", url: url("hooks-v2.example.com", "on-call") });
  }
  return changes.sort((a, b) => a.atMs - b.atMs);
}

/**
 * The webhooks configured at `nowMs` (`GET /v1/calls/webhooks` order: post-call, then on-call):
 * each kind's latest change at or before `nowMs`, unless the API deleted that kind at or before
 * `nowMs` (a deletion through the API is for good: later scheduled changes of that kind no longer apply).
 */
export function webhooksAt(
  history: readonly WebhookChange[],
  apiDeletions: ReadonlyMap<CallWebhookEventType, number>,
  nowMs: number,
): CallWebhook[] {
  const hooks: CallWebhook[] = [];
  for (const eventType of CALL_WEBHOOK_EVENT_TYPES) {
    const deletedAt = apiDeletions.get(eventType);
    if (deletedAt !== undefined && deletedAt <= nowMs) continue;
    let url: string | null = null;
    for (const change of history) {
      if (change.atMs > nowMs) break;
      if (change.eventType === eventType) url = change.url;
    }
    if (url !== null) hooks.push({ event_type: eventType, url });
  }
  return hooks;
}
