import { TRANSCRIPTION_RATE_MICROS } from "./catalog.js";
import type { CallTranscriptionSpec } from "./generate-cdr-day.js";
import { hash32, Rng } from "./prng.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

/**
 * Audio files an account uploaded for transcription (`POST /v1/speech-analytics`, which the loader
 * never calls): the only transcriptions `GET /v1/speech-analytics/{request_id}` answers. A call's
 * transcription is read under its CDR instead (platform-facts.md). Seeded apart from the world's
 * generator, so adding them changes no call, message or fee.
 */
export interface UploadedAudio {
  /** The transcription request id the upload answered (not a call id). */
  readonly requestId: string;
  readonly submittedAtMs: number;
  /** Length of the audio, seconds. */
  readonly duration: number;
  readonly transcription: CallTranscriptionSpec;
}

const LANGUAGES = ["en", "es", "de", "fr", "it"] as const;

/** One upload per started week of the world (at least one), at a seeded second of a world day. */
export function uploadedAudio(world: SandboxWorld, account: SandboxAccount): readonly UploadedAudio[] {
  const rng = new Rng(hash32(world.seed, "uploaded-audio", account.index));
  const uploads: UploadedAudio[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(world.days / 7)); i++) {
    const submittedAtMs = world.startMs + rng.int(0, world.days - 1) * DAY_MS + rng.int(0, 86_399) * 1000;
    const duration = rng.int(30, 900);
    const failed = rng.chance(0.05);
    const requestId = `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${"89ab"[rng.int(0, 3)]}${rng.hex(3)}-${rng.hex(12)}`;
    uploads.push({
      requestId,
      submittedAtMs,
      duration,
      transcription: {
        status: failed ? "failed" : "completed",
        readyAtMs: submittedAtMs + rng.int(60, 1800) * 1000,
        chargeMicros: failed ? 0 : TRANSCRIPTION_RATE_MICROS * Math.ceil(duration / 60),
        language: rng.pick(LANGUAGES),
      },
    });
  }
  return uploads.sort((a, b) => a.submittedAtMs - b.submittedAtMs);
}

/** The upload of `account` with this request id, when it was submitted by `nowMs`; else null. */
export function findUpload(
  world: SandboxWorld,
  account: SandboxAccount,
  requestId: string,
  nowMs: number,
): UploadedAudio | null {
  return (
    uploadedAudio(world, account).find((u) => u.requestId === requestId && u.submittedAtMs <= nowMs) ?? null
  );
}
