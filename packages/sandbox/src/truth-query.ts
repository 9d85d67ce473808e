import type { SandboxAccount } from "./world.js";

/**
 * A truth query: one account, inclusive UTC day range as epoch ms, and the instant it describes.
 * The clock is read once per query (`nowMs`), so every part of one export, and every export asked
 * at the same instant, describes the same moment even when the clock is real and ticking.
 */
export interface TruthQuery {
  readonly account: SandboxAccount;
  readonly fromMs: number;
  readonly toMs: number;
  readonly nowMs: number;
}
