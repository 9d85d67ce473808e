import type { SandboxAccount } from "./world.js";

/** A truth query: one account, inclusive UTC day range as epoch ms. */
export interface TruthQuery {
  readonly account: SandboxAccount;
  readonly fromMs: number;
  readonly toMs: number;
}
