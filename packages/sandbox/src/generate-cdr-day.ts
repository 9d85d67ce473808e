import type { CdrDisposition } from "@telecom-etl/platform/cdr.js";
import type { TRANSCRIPTION_LANGUAGES } from "@telecom-etl/platform/transcription.js";
import { encodeCallUuid } from "./call-uuid.js";
import { type Conversion, conversionsOn, pureFunnel } from "./campaign-funnel.js";
import {
  DESTINATIONS,
  type Destination,
  FORWARD_RATE_MICROS,
  HOURLY_WEIGHTS,
  NANP_CUSTOMER_AREA_CODES,
  TRANSCRIPTION_RATE_MICROS,
  WEEKDAY_FACTORS,
} from "./catalog.js";
import { mix32, Rng, weightedTable } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import { isWorldDay, type SandboxAccount, type SandboxDid, type SandboxWorld } from "./world.js";

/** The transcription a call will get, decided when the call is generated. */
export interface CallTranscriptionSpec {
  readonly status: "completed" | "failed";
  /** Sandbox time from which the call's `.../transcription` route under its CDR answers 200. */
  readonly readyAtMs: number;
  readonly chargeMicros: number;
  readonly language: (typeof TRANSCRIPTION_LANGUAGES)[number];
}

/** One generated call, before serialization. Money in micro-dollars. */
export interface CdrCall {
  /**
   * Row index within (account, day) of `n` parent calls: `i` for the i-th call by start time,
   * `n + i` for its child leg, `2n + k` for the k-th conversion call of the day (campaign-funnel.ts).
   */
  readonly index: number;
  /**
   * The UTC day whose rows hold the call (the day its uuid encodes): the day it started, except a
   * child leg of a call across midnight, which stays with its parent's day. With `index`, the
   * call's identity for seeded row faults on every route that serves its rows.
   */
  readonly dayNumber: number;
  readonly uuid: string;
  readonly direction: "placed" | "received";
  readonly startMs: number;
  readonly endMs: number;
  /** When the CDR becomes visible in the API (call end, or hours later for late CDRs). */
  readonly visibleAtMs: number;
  readonly late: boolean;
  readonly disposition: CdrDisposition;
  readonly duration: number;
  readonly from: string;
  readonly to: string;
  readonly destination: string | null;
  readonly perMinuteMicros: number | null;
  readonly chargeMicros: number | null;
  readonly sipTrunk: string | null;
  /** Null means the field is absent (only inbound calls forwarded to PSTN carry it). */
  readonly forwardFeeMicros: number | null;
  readonly parentUuid: string | null;
  readonly answeredBy: "human" | "machine" | null;
  readonly recordingUrl: string | null;
  readonly transcription: CallTranscriptionSpec | null;
}

const HOURS = weightedTable(
  HOURLY_WEIGHTS.map((_, h) => h),
  HOURLY_WEIGHTS,
);
const DISPOSITIONS = ["answered", "noanswer", "busy", "failed"] as const;
type DispositionTable = ReturnType<typeof weightedTable<CdrDisposition>>;
const PLACED_WEIGHTS = weightedTable(DISPOSITIONS, [62, 22, 8, 8]);
const RECEIVED_WEIGHTS = weightedTable(DISPOSITIONS, [80, 12, 4, 4]);
const CHILD_WEIGHTS = weightedTable(DISPOSITIONS, [85, 10, 3, 2]);
const ANSWERED = weightedTable(DISPOSITIONS, [1, 0, 0, 0]);
const LANGUAGES = weightedTable(["en", "es", "de", "fr", "it"] as const, [80, 10, 4, 4, 2]);
const DESTINATION_TABLE = weightedTable(
  DESTINATIONS,
  DESTINATIONS.map((d) => d.weight),
);
const LATE_SALT = 0x1a7e;
const DELAY_SALT = 0xde1a;
const CONVERSION_SALT = 0xc0a7;

/** Number of calls an account makes on a day (weekday curve and ±10% noise). */
export function callsOnDay(world: SandboxWorld, account: SandboxAccount, dayNumber: number): number {
  const noise = 0.9 + (0.2 * mix32(world.seed, 0x701, account.index, dayNumber)) / 4294967296;
  const weekday = WEEKDAY_FACTORS[(dayNumber + 4) % 7] ?? 1;
  return Math.round(world.callsPerDay * weekday * noise);
}

/** Start second (of the UTC day) of every parent call of the day, ascending: call `i` starts at `[i]`. */
export function daySeconds(world: SandboxWorld, account: SandboxAccount, dayNumber: number): Int32Array {
  if (!isWorldDay(world, dayNumber)) return new Int32Array(0);
  const rng = new Rng(mix32(world.seed, 0xcd1, account.index, dayNumber));
  const seconds = new Int32Array(callsOnDay(world, account, dayNumber));
  for (let i = 0; i < seconds.length; i++) seconds[i] = rng.fromTable(HOURS) * 3600 + rng.int(0, 3599);
  return seconds.sort();
}

function answeredDuration(rng: Rng): number {
  return Math.max(1, Math.min(7200, Math.round(Math.exp(Math.log(75) + 1.1 * rng.normal()))));
}

/**
 * A number of `length` national digits in `countryCode`; with `areaCodes` (NANP), a real area code
 * then a 7-digit local number. Both forms make the same draws, so the rest of the day is the same.
 */
function phoneNumber(rng: Rng, countryCode: string, length: number, areaCodes?: readonly number[]): string {
  const head = String(rng.int(2, 9));
  const rest = length - 1;
  const low = rest > 9 ? String(rng.int(0, 999_999_999)).padStart(9, "0") + rng.digits(rest - 9) : "";
  const tail = rest > 9 ? low : String(rng.int(0, 10 ** rest - 1)).padStart(rest, "0");
  if (areaCodes && areaCodes.length > 0 && length === 10) {
    const areaCode = areaCodes[Number(tail) % areaCodes.length]!;
    return `${countryCode}${areaCode}${head}${tail.slice(-6)}`;
  }
  return countryCode + head + tail;
}

interface Ctx {
  readonly world: SandboxWorld;
  readonly account: SandboxAccount;
  readonly dayNumber: number;
}

/** What makes a call before its outcome is drawn: its parties, rates, and trunk or number settings. */
interface CallFields {
  direction: "placed" | "received";
  weights: DispositionTable;
  from: string;
  to: string;
  destination: string;
  rateMicros: number;
  sipTrunk: string | null;
  forwardRateMicros: number | null;
  parentUuid: string | null;
  machineDetection: boolean;
  recording: boolean;
  transcription: boolean;
  threshold: number;
}

/** A call from `from` to the account's number `did`: billed, forwarded, recorded and transcribed as the number is set. */
function receivedOn(did: SandboxDid, from: string, weights: DispositionTable): CallFields {
  return {
    direction: "received",
    weights,
    from,
    to: did.number,
    destination: did.forward.target,
    rateMicros: did.perMinMicros,
    sipTrunk: null,
    forwardRateMicros: did.forward.kind === "pstn" ? FORWARD_RATE_MICROS : null,
    parentUuid: null,
    machineDetection: false,
    recording: did.recording,
    transcription: did.transcription,
    threshold: did.transcriptionThreshold,
  };
}

function buildCall(ctx: Ctx, rng: Rng, index: number, startMs: number, fields: CallFields): CdrCall {
  const { world, account, dayNumber } = ctx;
  const disposition = rng.fromTable(fields.weights);
  const answered = disposition === "answered";
  const failed = disposition === "failed";
  const duration = answered ? answeredDuration(rng) : 0;
  const minutes = Math.ceil(duration / 60);
  const endMs = startMs + (rng.int(2, 25) + duration) * 1000;
  const uuid = encodeCallUuid(world.seed, { account: account.index, dayNumber, index, kind: 0 }, rng);
  const late = mix32(world.seed ^ LATE_SALT, account.index, dayNumber, index) / 4294967296 < world.lateShare;
  const delayHash = mix32(world.seed ^ DELAY_SALT, account.index, dayNumber, index);
  const delay = late
    ? 3_600_000 + Math.floor((delayHash / 4294967296) * 169_200_000)
    : 1000 + (delayHash % 59_000);
  let transcription: CallTranscriptionSpec | null = null;
  if (answered && fields.transcription && duration >= fields.threshold) {
    const transcriptionFailed = rng.chance(0.04);
    transcription = {
      status: transcriptionFailed ? "failed" : "completed",
      readyAtMs: endMs + rng.int(20, 900) * 1000,
      chargeMicros: transcriptionFailed ? 0 : TRANSCRIPTION_RATE_MICROS * minutes,
      language: rng.fromTable(LANGUAGES),
    };
  }
  return {
    index,
    dayNumber,
    uuid,
    direction: fields.direction,
    startMs,
    endMs,
    visibleAtMs: endMs + delay,
    late,
    disposition,
    duration,
    from: fields.from,
    to: fields.to,
    destination: fields.destination,
    perMinuteMicros: failed ? null : fields.rateMicros,
    chargeMicros: failed ? null : fields.rateMicros * minutes,
    sipTrunk: fields.sipTrunk,
    forwardFeeMicros: fields.forwardRateMicros === null ? null : fields.forwardRateMicros * minutes,
    parentUuid: fields.parentUuid,
    answeredBy: answered && fields.machineDetection ? (rng.chance(0.18) ? "machine" : "human") : null,
    recordingUrl:
      answered && fields.recording ? `https://recordings.sandbox.test/${account.id}/${uuid}.mp3` : null,
    transcription,
  };
}

/**
 * The call `index` of the day (a parent, started at `second`) and, for ~3% of answered outbound
 * calls, its child leg (index `count + index`). Each call has its own seeded generator, so any
 * call can be regenerated alone.
 */
export function generateCall(ctx: Ctx, index: number, second: number, count: number): CdrCall[] {
  const { world, account, dayNumber } = ctx;
  const rng = new Rng(mix32(world.seed, account.index, dayNumber, index));
  const startMs = dayNumber * DAY_MS + second * 1000;
  if (rng.chance(0.35)) {
    const did = rng.pick(account.dids);
    const local = rng.chance(0.85);
    const from = local ? phoneNumber(rng, "1", 10, NANP_CUSTOMER_AREA_CODES) : phoneNumber(rng, "52", 10);
    return [buildCall(ctx, rng, index, startMs, receivedOn(did, from, RECEIVED_WEIGHTS))];
  }
  const trunk = rng.pick(account.trunks);
  const dest: Destination = rng.fromTable(DESTINATION_TABLE);
  const outbound = (weights: DispositionTable, parentUuid: string | null, to: string): CallFields => ({
    direction: "placed",
    weights,
    from: trunk.callerid,
    to,
    destination: dest.label,
    rateMicros: dest.ratePerMinuteMicros,
    sipTrunk: trunk.name,
    forwardRateMicros: null,
    parentUuid,
    machineDetection: parentUuid === null && trunk.machineDetection,
    recording: trunk.recording,
    transcription: parentUuid === null && trunk.transcription,
    threshold: trunk.transcriptionThreshold,
  });
  const parent = buildCall(
    ctx,
    rng,
    index,
    startMs,
    outbound(PLACED_WEIGHTS, null, phoneNumber(rng, dest.countryCode, dest.nationalLength, dest.areaCodes)),
  );
  if (parent.duration <= 20 || !rng.chance(0.03)) return [parent];
  const childStart = Math.min(
    startMs + rng.int(5, parent.duration - 5) * 1000,
    (dayNumber + 1) * DAY_MS - 1000,
  );
  const childTo = phoneNumber(rng, dest.countryCode, dest.nationalLength, dest.areaCodes);
  return [
    parent,
    buildCall(ctx, rng, count + index, childStart, outbound(CHILD_WEIGHTS, parent.uuid, childTo)),
  ];
}

/**
 * The conversion call `k` of the day (index `2n + k`): a clicker of a campaign's link calls one of
 * the account's numbers and the call is answered; billed, forwarded, recorded and transcribed as
 * any received call to that number. Its own seeded generator, so it can be regenerated alone.
 */
export function generateConversionCall(ctx: Ctx, conversion: Conversion, k: number, count: number): CdrCall {
  const { world, account, dayNumber } = ctx;
  const index = 2 * count + k;
  const rng = new Rng(mix32(world.seed ^ CONVERSION_SALT, account.index, dayNumber, index));
  const did = account.dids[conversion.didIndex]!;
  return buildCall(ctx, rng, index, conversion.startMs, receivedOn(did, conversion.phone, ANSWERED));
}

/** The conversion calls starting on a day, from the pure funnel (recomputed; stores pass cached ones). */
export function dayConversions(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
): Conversion[] {
  return isWorldDay(world, dayNumber) ? conversionsOn(pureFunnel(world, account), dayNumber) : [];
}

/** Orders calls by start time, then uuid: the serving order within a day. */
export function compareCalls(a: CdrCall, b: CdrCall): number {
  return a.startMs - b.startMs || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0);
}

/**
 * Every call of one account on one day, in serving order: the day's calls with their child legs,
 * then the conversion calls of the campaign funnel (`conversions`, by default from the pure
 * funnel). Pure: the same world, account and day always give the same calls; late arrival is
 * decided by a hash of the row, so changing `lateShare` changes visibility only.
 */
export function generateCdrDay(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
  conversions: readonly Conversion[] = dayConversions(world, account, dayNumber),
): CdrCall[] {
  const seconds = daySeconds(world, account, dayNumber);
  const ctx = { world, account, dayNumber };
  const calls: CdrCall[] = [];
  for (let i = 0; i < seconds.length; i++) {
    for (const call of generateCall(ctx, i, seconds[i]!, seconds.length)) calls.push(call);
  }
  conversions.forEach((conversion, k) => {
    calls.push(generateConversionCall(ctx, conversion, k, seconds.length));
  });
  return calls.sort(compareCalls);
}

/** Regenerates one call from its row index (as decoded from its uuid), or null. */
export function regenerateCall(
  world: SandboxWorld,
  account: SandboxAccount,
  dayNumber: number,
  index: number,
  seconds: Int32Array = daySeconds(world, account, dayNumber),
  conversions: readonly Conversion[] = dayConversions(world, account, dayNumber),
): CdrCall | null {
  const n = seconds.length;
  if (index >= 2 * n) {
    const conversion = conversions[index - 2 * n];
    return conversion
      ? generateConversionCall({ world, account, dayNumber }, conversion, index - 2 * n, n)
      : null;
  }
  const parent = index < n ? index : index - n;
  if (parent < 0 || parent >= n) return null;
  const calls = generateCall({ world, account, dayNumber }, parent, seconds[parent]!, n);
  return calls.find((c) => c.index === index) ?? null;
}
