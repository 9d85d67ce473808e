import { decodeCallUuid } from "./call-uuid.js";
import { type CdrCall, regenerateCall } from "./generate-cdr-day.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import { isWorldDay, type SandboxAccount } from "./world.js";

/** The call of `account` with this uuid (generated or started through the API), visible or not. */
export function findCall(runtime: SandboxRuntime, account: SandboxAccount, uuid: string): CdrCall | null {
  const at = decodeCallUuid(runtime.world.seed, uuid);
  if (at?.account !== account.index || at.kind === 2) return null;
  if (at.kind === 1) return runtime.cdrs.liveCall(uuid) ?? null;
  if (!isWorldDay(runtime.world, at.dayNumber)) return null;
  const { seconds, conversions } = runtime.cdrs.day(account, at.dayNumber);
  const call = regenerateCall(runtime.world, account, at.dayNumber, at.index, seconds, conversions);
  return call?.uuid === uuid ? call : null;
}

/** The call of `account` with this id when its CDR is visible at `nowMs`, else null. */
export function visibleCall(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  id: string,
  nowMs: number,
): CdrCall | null {
  const call = findCall(runtime, account, id);
  return call && call.visibleAtMs <= nowMs ? call : null;
}

/**
 * Where the transcription of call `id` stands at `nowMs`: `null` when the call has none (or its
 * CDR is not visible yet: nothing under a call exists before its CDR, see served-calls.ts),
 * `pending` while it is being made, else the call (its transcription is ready).
 */
export function transcribedCall(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  id: string,
  nowMs: number,
): CdrCall | "pending" | null {
  const call = visibleCall(runtime, account, id, nowMs);
  if (!call?.transcription) return null;
  return call.transcription.readyAtMs > nowMs ? "pending" : call;
}
