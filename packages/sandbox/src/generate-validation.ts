import type { NumberValidationResult, ValidationResponse } from "@telecom-etl/platform/validation.js";
import { formatMicros } from "./money.js";
import { hash32, Rng } from "./prng.js";
import type { SandboxValidationRequest } from "./world.js";

const CARRIERS = [
  { name: "Verizon Wireless", mcc: "311", mnc: "480", type: "mobile" },
  { name: "T-Mobile USA", mcc: "310", mnc: "260", type: "mobile" },
  { name: "AT&T Mobility", mcc: "310", mnc: "410", type: "mobile" },
  { name: "Lumen", mcc: "", mnc: "", type: "landline" },
  { name: "Bandwidth", mcc: "", mnc: "", type: "voip" },
  { name: "Twilio", mcc: "", mnc: "", type: "voip" },
  { name: "Comcast", mcc: "", mnc: "", type: "fixed_voip" },
] as const;
const ZONES = ["UTC-05:00", "UTC-06:00", "UTC-07:00", "UTC-08:00"] as const;

/** Result of item `index` of a validation request (all fields: an HLR lookup). */
export function validationItem(
  seed: number,
  request: SandboxValidationRequest,
  index: number,
): NumberValidationResult {
  const rng = new Rng(hash32(seed, "validation", request.token, index));
  const area = rng.pick([212, 213, 312, 415, 617, 713, 305]);
  const local = `${rng.int(2, 9)}${rng.digits(6)}`;
  const digits = `1${area}${local}`;
  const carrier = rng.weighted(CARRIERS, [30, 25, 25, 8, 5, 4, 3]);
  const valid = rng.chance(0.93);
  const failedLookup = valid && rng.chance(0.03);
  return {
    phone_number: digits,
    valid,
    country_code: "US",
    e164_format: `+${digits}`,
    national_format: `(${area}) ${local.slice(0, 3)}-${local.slice(3)}`,
    ported: valid && rng.chance(0.15),
    mcc: valid ? carrier.mcc : "",
    mnc: valid ? carrier.mnc : "",
    number_type: valid ? carrier.type : "unknown",
    carrier_name: valid ? carrier.name : "",
    risky_destination: rng.chance(0.01),
    unallocated_range: !valid && rng.chance(0.5),
    reachable: valid && !failedLookup && rng.chance(0.95),
    roaming: valid && rng.chance(0.02),
    timezone: rng.pick(ZONES),
    charge: formatMicros(request.perNumberMicros),
    error_code: failedLookup ? "005" : "000",
  };
}

/** `GET /v1/validation/{token}` at `nowMs`: numbers are processed evenly over `processingMs`. */
export function validationResponse(
  seed: number,
  request: SandboxValidationRequest,
  nowMs: number,
): ValidationResponse {
  const progress =
    request.processingMs <= 0 ? 1 : Math.min(1, (nowMs - request.createdAtMs) / request.processingMs);
  const processed = Math.max(0, Math.floor(request.count * progress));
  const items: NumberValidationResult[] = [];
  for (let i = 0; i < processed; i++) items.push(validationItem(seed, request, i));
  const pending = request.count - processed;
  return { status: pending === 0 ? "success" : "in progress", pending, count: request.count, items };
}
