import type { SipTrunk } from "../platform/sip-trunk.js";
import { hash32, Rng } from "./prng.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxAccount, SandboxTrunk } from "./world.js";

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

/**
 * A seeded trunk as `GET /v1/trunks` lists it. The settings that shape CDRs (recording, machine
 * detection, transcription and threshold, caller id) are the world's; the others are seeded by the
 * trunk's id. Seeded trunks use one caller id (`multiple_numbers` false), the number their CDRs carry.
 */
export function seededTrunkView(seed: number, trunk: SandboxTrunk): SipTrunk {
  const rng = new Rng(hash32(seed, "trunk-view", trunk.id));
  const ipRestrict = rng.chance(0.3);
  const ip = `203.0.113.${rng.int(2, 250)}`;
  const channelsRestrict = rng.chance(0.4);
  const maxChannels = rng.pick([5, 10, 20, 30]);
  const costLimit = rng.chance(0.3);
  const maxCallCost = rng.pick(["1.50", "5.00", "10.00"]);
  const callRestrict = rng.chance(0.3);
  const callLimit = rng.pick([600, 1800, 3600, 14_400]);
  const rewrite = rng.chance(0.2);
  return {
    id: trunk.id,
    name: trunk.name,
    callerid: trunk.callerid,
    label: trunk.label,
    allowed_ips: ipRestrict ? [{ id: trunk.id * 10 + 1, ip }] : [],
    created_at: iso(trunk.createdAtMs),
    ip_restrict: ipRestrict,
    channels_restrict: channelsRestrict,
    max_channels: channelsRestrict ? maxChannels : null,
    cost_limit: costLimit,
    max_call_cost: costLimit ? maxCallCost : null,
    call_restrict: callRestrict,
    call_limit: callRestrict ? callLimit : null,
    didinfo_enabled: rng.chance(0.9),
    rewrite_enabled: rewrite,
    rewrite_prefix: rewrite ? "011" : "",
    rewrite_cond: rewrite ? "1" : "",
    call_recording_enabled: trunk.recording,
    machine_detection_enabled: trunk.machineDetection,
    transcription_enabled: trunk.transcription,
    transcription_threshold: trunk.transcriptionThreshold,
    host: ipRestrict ? ip : "dynamic",
    multiple_numbers: false,
    encrypted_media: rng.chance(0.4),
    access_token: rng.hex(32),
  };
}

/**
 * Every trunk of an account that exists at `nowMs`, in `GET /v1/trunks` order: the seeded ones
 * by id, then those created through `POST /v1/trunks` in creation order.
 */
export function trunksOf(runtime: SandboxRuntime, account: SandboxAccount, nowMs: number): SipTrunk[] {
  const seeded = account.trunks
    .filter((t) => t.createdAtMs <= nowMs)
    .map((t) => seededTrunkView(runtime.world.seed, t));
  const created = (runtime.state.createdTrunks.get(account.index) ?? []).filter(
    (t) => Date.parse(t.created_at) <= nowMs,
  );
  return [...seeded, ...created];
}
