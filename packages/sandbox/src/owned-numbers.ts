import type { Did, DocType } from "@telecom-etl/platform/numbers.js";
import { formatMicros } from "./money.js";
import type { SandboxRuntime } from "./sandbox-runtime.js";
import type { SandboxAccount, SandboxDid } from "./world.js";

/**
 * The document types the owned-numbers list names in `doc_types` (the platform's reference gives
 * their shape, `id`, `name`, `title`, not their values: these are the sandbox's). Seeded numbers
 * require none.
 */
export const DOC_TYPES: readonly DocType[] = [
  { id: 1, name: "address_proof", title: "Proof of address" },
  { id: 2, name: "identity", title: "Identity document" },
  { id: 3, name: "business_registration", title: "Business registration" },
];

/**
 * The DID object of an owned number at `nowMs`, with its current settings (`PUT /v1/mydids/{id}`
 * changes show at once). `paid_until` is the first day of the next month; `seconds` stays "0"
 * (the sandbox does not total a month's inbound minutes per number).
 */
export function didView(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  did: SandboxDid,
  nowMs: number,
): Did {
  const settings = runtime.state.didSettingsOf(account, did.id)!;
  const trunk = account.trunks.find((t) => t.id === did.forward.trunkId) ?? account.trunks[0]!;
  const now = new Date(nowMs);
  const paidUntil = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
    .toISOString()
    .slice(0, 10);
  return {
    id: did.id,
    number: did.number,
    activation_fee: formatMicros(did.activationFeeMicros),
    monthly_fee: formatMicros(did.monthlyFeeMicros),
    per_min: formatMicros(did.perMinMicros),
    city: did.city,
    country: "United States",
    country_short_name: "US",
    destination: [
      {
        id: did.id * 10 + 1,
        destination: did.forward.target,
        priority: 1,
        transport: did.forward.kind === "pstn" ? 3 : did.forward.kind === "sip" ? 2 : 1,
        trunk_id: trunk.id,
        trunk_label: trunk.label,
        srtp: false,
      },
    ],
    channels: did.channels,
    require_docs: [],
    documents: [],
    domestic_cli: false,
    label: null,
    status: "active",
    seconds: "0",
    added: new Date(did.addedMs).toISOString().slice(0, 19) + "Z",
    paid_until: paidUntil,
    sms_enabled: did.smsEnabled,
    sms_relay_url: settings.smsRelayUrl,
    cnam: null,
    call_recording_enabled: settings.callRecordingEnabled,
    transcription_enabled: settings.transcriptionEnabled,
    transcription_threshold: settings.transcriptionThreshold,
    state: did.state,
    call_status_url: settings.callStatusUrl,
  };
}

/** The account's owned numbers at `nowMs` in `GET /v1/mydids` order (by id), as serialized rows. */
export function ownedDidRows(
  runtime: SandboxRuntime,
  account: SandboxAccount,
  nowMs: number,
): { readonly id: number; readonly json: string }[] {
  return account.dids
    .filter((did) => did.addedMs <= nowMs)
    .sort((a, b) => a.id - b.id)
    .map((did) => ({ id: did.id, json: JSON.stringify(didView(runtime, account, did, nowMs)) }));
}
