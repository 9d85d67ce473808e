import type { MessageDirection, MessageStatus, MessageType } from "@telecom-etl/platform/message.js";
import type { SandboxMessage } from "./generate-message.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { messageStatusAt } from "./serialize-message.js";
import type { SandboxAccount } from "./world.js";

/** The filters of `GET /v3/messages` (and of the truth export): a `submitted_at` window and exact matches. */
export interface MessageFilter {
  readonly account: SandboxAccount;
  /** `type`; null for both directions (truth export). */
  readonly direction: MessageDirection | null;
  /** Inclusive, a UTC midnight. */
  readonly fromMs: number;
  /** Exclusive, a UTC midnight (or +Infinity). */
  readonly untilMs: number;
  readonly from: string | null;
  readonly to: string | null;
  readonly tag: string | null;
  readonly status: MessageStatus | null;
  readonly type: MessageType | null;
}

/** A selected message with the day it was submitted on (its row identity is (day, index)). */
export interface SelectedMessage {
  readonly message: SandboxMessage;
  readonly day: number;
}

/**
 * Messages matching `filter` that exist at `nowMs` (submitted at or before it), in serving order:
 * by `submitted_at`, then `message_id`. `status` is matched against the status at `nowMs`. New
 * messages sort after every listed one of their window, so paging while the clock moves never
 * shifts rows already served.
 */
export function selectMessages(
  runtime: SandboxRuntime,
  filter: MessageFilter,
  nowMs: number,
): SelectedMessage[] {
  const { world, messages } = runtime;
  const firstDay = Math.max(filter.fromMs, world.startMs) / DAY_MS;
  const endDay = Math.min(filter.untilMs, world.endMs, Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS) / DAY_MS;
  const selected: SelectedMessage[] = [];
  for (let day = firstDay; day < endDay; day++) {
    for (const message of messages.day(filter.account, day)) {
      if (message.submittedAtMs > nowMs) break;
      if (filter.direction !== null && message.direction !== filter.direction) continue;
      if (filter.from !== null && message.from !== filter.from) continue;
      if (filter.to !== null && message.to !== filter.to) continue;
      if (filter.tag !== null && message.tag !== filter.tag) continue;
      if (filter.type !== null && message.type !== filter.type) continue;
      if (filter.status !== null && messageStatusAt(message, nowMs) !== filter.status) continue;
      selected.push({ message, day });
    }
  }
  return selected;
}
