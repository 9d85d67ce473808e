import { decodeCallUuid } from "./call-uuid.js";
import type { ServedCdr } from "./cdr-store.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxAccount } from "./world.js";

/** The call of `account` with this uuid (generated or started through the API), visible or not. */
export function findCall(runtime: SandboxRuntime, account: SandboxAccount, uuid: string): ServedCdr | null {
  const at = decodeCallUuid(runtime.world.seed, uuid);
  if (at?.account !== account.index) return null;
  if (at.kind === 1) return runtime.cdrs.liveCall(uuid) ?? null;
  const dayMs = at.dayNumber * DAY_MS;
  if (dayMs < runtime.world.startMs || dayMs >= runtime.world.endMs) return null;
  const row = runtime.cdrs.day(account, at.dayNumber).byIndex[at.index];
  return row?.call.uuid === uuid ? row : null;
}
