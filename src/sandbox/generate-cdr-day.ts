import type { CdrDisposition } from "../platform/cdr.js";
import type { TRANSCRIPTION_LANGUAGES } from "../platform/transcription.js";
import { encodeCallUuid } from "./call-uuid.js";
import {
  DESTINATIONS,
  FORWARD_RATE_MICROS,
  HOURLY_WEIGHTS,
  TRANSCRIPTION_RATE_MICROS,
  WEEKDAY_FACTORS,
} from "./catalog.js";
import { hash32, Rng, unitHash } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/** The transcription a call will get, decided when the call is generated. */
export interface CallTranscriptionSpec {
  readonly status: "completed" | "failed";
  /** Sandbox time from which `GET /v1/speech-analytics/{uuid}` answers 200. */
  readonly readyAtMs: number;
  readonly chargeMicros: number;
  readonly language: (typeof TRANSCRIPTION_LANGUAGES)[number];
}

/** One generated call, before serialization. Money in micro-dollars. */
export interface CdrCall {
  readonly index: number;
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

const HOURS = HOURLY_WEIGHTS.map((_, h) => h);
const PLACED_DISPOSITIONS = ["answered", "noanswer", "busy", "failed"] as const;
const LANGUAGES = ["en", "es", "de", "fr", "it"] as const;

/** Number of calls an account makes on a day (weekday curve and ±10% noise). */
export function callsOnDay(world: SandboxWorld, account: SandboxAccount, dayNumber: number): number {
  const noise = 0.9 + 0.2 * unitHash(world.seed, "volume", account.index, dayNumber);
  const weekday = WEEKDAY_FACTORS[(dayNumber + 4) % 7] ?? 1;
  return Math.round(world.callsPerDay * weekday * noise);
}

function answeredDuration(rng: Rng): number {
  return Math.max(1, Math.min(7200, Math.round(Math.exp(Math.log(75) + 1.1 * rng.normal()))));
}

function internationalNumber(rng: Rng, countryCode: string, length: number): string {
  return countryCode + String(rng.int(2, 9)) + rng.digits(length - 1);
}

interface CallShape {
  readonly disposition: CdrDisposition;
  readonly duration: number;
  readonly minutes: number;
  readonly ringSeconds: number;
}

function shapeCall(rng: Rng, weights: readonly number[]): CallShape {
  const disposition = rng.weighted(PLACED_DISPOSITIONS, weights);
  const duration = disposition === "answered" ? answeredDuration(rng) : 0;
  return { disposition, duration, minutes: Math.ceil(duration / 60), ringSeconds: rng.int(2, 25) };
}

/**
 * Generates every call of one account on one day, sorted by start time then uuid. Pure: the same
 * world, account and day always give the same calls. Visibility (late arrival) is decided per row
 * from a hash, so it does not disturb the rest of the day when `lateShare` changes.
 */
export function generateCdrDay(world: SandboxWorld, account: SandboxAccount, dayNumber: number): CdrCall[] {
  const dayStartMs = dayNumber * DAY_MS;
  if (dayStartMs < world.startMs || dayStartMs >= world.endMs) return [];
  const rng = new Rng(hash32(world.seed, "cdr", account.index, dayNumber));
  const count = callsOnDay(world, account, dayNumber);
  const seconds: number[] = [];
  for (let i = 0; i < count; i++) seconds.push(rng.weighted(HOURS, HOURLY_WEIGHTS) * 3600 + rng.int(0, 3599));
  seconds.sort((a, b) => a - b);
  const calls: CdrCall[] = [];
  let nextIndex = 0;
  const finish = (
    base: Omit<
      CdrCall,
      "index" | "uuid" | "endMs" | "visibleAtMs" | "late" | "transcription" | "recordingUrl"
    >,
    shape: CallShape,
    recordingOn: boolean,
    transcriptionOn: { enabled: boolean; threshold: number },
  ): CdrCall => {
    const index = nextIndex++;
    const uuid = encodeCallUuid(world.seed, { account: account.index, dayNumber, index, kind: 0 }, rng);
    const endMs = base.startMs + (shape.ringSeconds + shape.duration) * 1000;
    const late = unitHash(world.seed, "late", account.index, dayNumber, index) < world.lateShare;
    const delay = late
      ? 3_600_000 +
        Math.floor(unitHash(world.seed, "late-delay", account.index, dayNumber, index) * 169_200_000)
      : 1000 + (hash32(world.seed, "settle", account.index, dayNumber, index) % 59_000);
    const answered = shape.disposition === "answered";
    let transcription: CallTranscriptionSpec | null = null;
    if (answered && transcriptionOn.enabled && shape.duration >= transcriptionOn.threshold) {
      const failed = rng.chance(0.04);
      transcription = {
        status: failed ? "failed" : "completed",
        readyAtMs: endMs + rng.int(20, 900) * 1000,
        chargeMicros: failed ? 0 : TRANSCRIPTION_RATE_MICROS * shape.minutes,
        language: rng.weighted(LANGUAGES, [80, 10, 4, 4, 2]),
      };
    }
    return {
      ...base,
      index,
      uuid,
      endMs,
      visibleAtMs: endMs + delay,
      late,
      recordingUrl:
        answered && recordingOn ? `https://recordings.sandbox.test/${account.id}/${uuid}.mp3` : null,
      transcription,
    };
  };
  for (const second of seconds) {
    const startMs = dayStartMs + second * 1000;
    if (rng.chance(0.35)) {
      const did = rng.pick(account.dids);
      const shape = shapeCall(rng, [80, 12, 4, 4]);
      const failed = shape.disposition === "failed";
      calls.push(
        finish(
          {
            direction: "received",
            startMs,
            disposition: shape.disposition,
            duration: shape.duration,
            from: rng.chance(0.85) ? `1${rng.int(2, 9)}${rng.digits(9)}` : internationalNumber(rng, "52", 10),
            to: did.number,
            destination: did.forward.target,
            perMinuteMicros: failed ? null : did.perMinMicros,
            chargeMicros: failed ? null : did.perMinMicros * shape.minutes,
            sipTrunk: null,
            forwardFeeMicros: did.forward.kind === "pstn" ? FORWARD_RATE_MICROS * shape.minutes : null,
            parentUuid: null,
            answeredBy: null,
          },
          shape,
          did.recording,
          { enabled: did.transcription, threshold: did.transcriptionThreshold },
        ),
      );
      continue;
    }
    const trunk = rng.pick(account.trunks);
    const dest = rng.weighted(
      DESTINATIONS,
      DESTINATIONS.map((d) => d.weight),
    );
    const shape = shapeCall(rng, [62, 22, 8, 8]);
    const failed = shape.disposition === "failed";
    const answered = shape.disposition === "answered";
    const base = {
      direction: "placed" as const,
      from: trunk.callerid,
      destination: dest.label,
      perMinuteMicros: failed ? null : dest.ratePerMinuteMicros,
      sipTrunk: trunk.name,
      forwardFeeMicros: null,
    };
    const parent = finish(
      {
        ...base,
        startMs,
        disposition: shape.disposition,
        duration: shape.duration,
        to: internationalNumber(rng, dest.countryCode, dest.nationalLength),
        chargeMicros: failed ? null : dest.ratePerMinuteMicros * shape.minutes,
        parentUuid: null,
        answeredBy: answered && trunk.machineDetection ? (rng.chance(0.18) ? "machine" : "human") : null,
      },
      shape,
      trunk.recording,
      { enabled: trunk.transcription, threshold: trunk.transcriptionThreshold },
    );
    calls.push(parent);
    if (answered && shape.duration > 20 && rng.chance(0.03)) {
      const childShape = shapeCall(rng, [85, 10, 3, 2]);
      const childStart = Math.min(
        parent.startMs + rng.int(5, shape.duration - 5) * 1000,
        dayStartMs + DAY_MS - 1000,
      );
      const childFailed = childShape.disposition === "failed";
      calls.push(
        finish(
          {
            ...base,
            startMs: childStart,
            disposition: childShape.disposition,
            duration: childShape.duration,
            to: internationalNumber(rng, dest.countryCode, dest.nationalLength),
            perMinuteMicros: childFailed ? null : dest.ratePerMinuteMicros,
            chargeMicros: childFailed ? null : dest.ratePerMinuteMicros * childShape.minutes,
            parentUuid: parent.uuid,
            answeredBy: null,
          },
          childShape,
          trunk.recording,
          { enabled: false, threshold: 0 },
        ),
      );
    }
  }
  calls.sort((a, b) => a.startMs - b.startMs || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return calls;
}
