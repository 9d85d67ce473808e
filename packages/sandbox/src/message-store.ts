import { BoundedDayCache } from "./bounded-day-cache.js";
import { messageCostMicros, type SandboxMessage } from "./generate-message.js";
import { generateMessageDay, messageDayCostMicros } from "./generate-message-day.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** Messages kept in the generated-day cache (a message object is ~0.5 KB). */
const MAX_CACHED_MESSAGES = 120_000;

/**
 * Messages per (account, day), generated on demand and kept in an LRU bounded by message count;
 * what each day's messages cost is tiny and kept forever (invoices need it).
 */
export class MessageStore {
  private readonly days: BoundedDayCache<readonly SandboxMessage[]>;
  private readonly costs = new Map<string, number>();

  constructor(
    private readonly world: SandboxWorld,
    maxMessages = MAX_CACHED_MESSAGES,
  ) {
    this.days = new BoundedDayCache(maxMessages, (messages) => messages.length);
  }

  /** Messages of one account submitted on one day, both directions, in serving order. */
  day(account: SandboxAccount, dayNumber: number): readonly SandboxMessage[] {
    const key = `${account.index}:${dayNumber}`;
    const hit = this.days.get(key);
    if (hit) return hit;
    const messages = generateMessageDay(this.world, account, dayNumber);
    this.costs.set(key, totalCost(messages));
    if (messages.length === 0) return messages;
    this.days.set(key, messages);
    return messages;
  }

  /**
   * What the day's messages cost the account once final (final charges plus carrier fees of
   * delivered messages), micro-dollars; computed from the messages' fates alone when the day was
   * not generated (no message objects), then kept.
   */
  dayCostMicros(account: SandboxAccount, dayNumber: number): number {
    const key = `${account.index}:${dayNumber}`;
    let cost = this.costs.get(key);
    if (cost === undefined) {
      cost = messageDayCostMicros(this.world, account, dayNumber);
      this.costs.set(key, cost);
    }
    return cost;
  }

  /** Messages currently cached (for stats). */
  get cachedCount(): number {
    return this.days.rows;
  }
}

function totalCost(messages: readonly SandboxMessage[]): number {
  let micros = 0;
  for (const message of messages) micros += messageCostMicros(message);
  return micros;
}
