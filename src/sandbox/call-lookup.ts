import { decodeCallUuid } from "./call-uuid.js";
import { type CdrCall, regenerateCall } from "./generate-cdr-day.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { isWorldDay, type SandboxAccount } from "./world.js";

/** The call of `account` with this uuid (generated or started through the API), visible or not. */
export function findCall(runtime: SandboxRuntime, account: SandboxAccount, uuid: string): CdrCall | null {
  const at = decodeCallUuid(runtime.world.seed, uuid);
  if (at?.account !== account.index) return null;
  if (at.kind === 1) return runtime.cdrs.liveCall(uuid) ?? null;
  if (!isWorldDay(runtime.world, at.dayNumber)) return null;
  const seconds = runtime.cdrs.day(account, at.dayNumber).seconds;
  const call = regenerateCall(runtime.world, account, at.dayNumber, at.index, seconds);
  return call?.uuid === uuid ? call : null;
}
