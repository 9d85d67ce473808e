import type { SipTrunk, SipTrunkSummary } from "@telecom-etl/platform/sip-trunk.js";
import { formatMicros } from "./money.js";
import { hash32, Rng } from "./prng.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { TrunkTotals } from "./trunk-usage.js";
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
 * A trunk as `GET /v1/trunks` lists it, from its full settings: a trunk with a static host
 * authenticates by IP (`IP auth`, its `host_request` the host and the request's status), one with a
 * `dynamic` host by registration (`Digest`, `host_request` null). An IP-auth request waits for the
 * platform's approval: seeded trunks are approved (`active`), a trunk created with a `host_request`
 * stays `pending`. Caller-id passthrough also needs the platform's approval, which the sandbox
 * never gives (`passthrough` false). `talk_time` and `charge` are `totals` (month to date).
 */
export function trunkSummary(trunk: SipTrunk, approved: boolean, totals: TrunkTotals): SipTrunkSummary {
  const ipAuth = trunk.host !== "dynamic";
  const status = approved || !ipAuth ? "active" : "pending";
  return {
    id: trunk.id,
    name: trunk.name,
    label: trunk.label,
    callerid: trunk.callerid,
    auth_method: ipAuth ? "IP auth" : "Digest",
    host_request: ipAuth ? { host: trunk.host, status: status === "active" ? "approved" : "pending" } : null,
    status,
    charge: formatMicros(totals.micros),
    talk_time: totals.seconds,
    passthrough: false,
    multiple_numbers: trunk.multiple_numbers,
    encrypted_media: trunk.encrypted_media,
    call_recording_enabled: trunk.call_recording_enabled,
    machine_detection_enabled: trunk.machine_detection_enabled,
    transcription_enabled: trunk.transcription_enabled,
    transcription_threshold: trunk.transcription_threshold,
    access_token: trunk.access_token,
  };
}

/** Trunks created through `POST /v1/trunks` that exist at `nowMs`, in creation order. */
function createdTrunks(runtime: SandboxRuntime, account: SandboxAccount, nowMs: number): SipTrunk[] {
  return (runtime.state.createdTrunks.get(account.index) ?? []).filter(
    (t) => Date.parse(t.created_at) <= nowMs,
  );
}

/**
 * Every trunk of an account that exists at `nowMs`, with all its settings, in `GET /v1/trunks`
 * order: the seeded ones by id, then those created through `POST /v1/trunks` in creation order.
 */
export function trunksOf(runtime: SandboxRuntime, account: SandboxAccount, nowMs: number): SipTrunk[] {
  const seeded = account.trunks
    .filter((t) => t.createdAtMs <= nowMs)
    .map((t) => seededTrunkView(runtime.world.seed, t));
  return [...seeded, ...createdTrunks(runtime, account, nowMs)];
}

/**
 * The account's trunks at `nowMs` as `GET /v1/trunks` lists them (same order as {@link trunksOf}),
 * each with its month-to-date outbound totals (see trunk-usage.ts; created trunks place no calls).
 */
export function trunkSummariesOf(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  nowMs: number,
): SipTrunkSummary[] {
  const seeded = account.trunks.filter((t) => t.createdAtMs <= nowMs);
  const totals = seeded.length === 0 ? [] : runtime.trunkUsage.monthToDate(account, nowMs);
  return [
    ...seeded.map((t) =>
      trunkSummary(seededTrunkView(runtime.world.seed, t), true, totals[account.trunks.indexOf(t)]!),
    ),
    ...createdTrunks(runtime, account, nowMs).map((t) => trunkSummary(t, false, { seconds: 0, micros: 0 })),
  ];
}
