import type { FunnelStore } from "./campaign-funnel.js";
import { generateShortLinkDay, type ShortLinkClick } from "./generate-short-link-metrics.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

const MAX_DAYS = 2048;

/** Short-link clicks per (account, day), generated on demand and cached (they are small). */
export class ShortLinkStore {
  private readonly days = new Map<string, ShortLinkClick[]>();

  constructor(
    private readonly world: SandboxWorld,
    private readonly funnel: FunnelStore,
  ) {}

  /** Clicks of one account on one day, in serving order. */
  day(account: SandboxAccount, dayNumber: number): readonly ShortLinkClick[] {
    const key = `${account.index}:${dayNumber}`;
    let clicks = this.days.get(key);
    if (!clicks) {
      if (this.days.size >= MAX_DAYS) this.days.clear();
      clicks = generateShortLinkDay(this.world, account, dayNumber, this.funnel.of(account));
      this.days.set(key, clicks);
    }
    return clicks;
  }
}
