import type { Call, CallEventType, StartCallRequest } from "@telecom-etl/platform/call.js";
import type { CdrDisposition } from "@telecom-etl/platform/cdr.js";
import { encodeCallUuid } from "./call-uuid.js";
import { DESTINATIONS } from "./catalog.js";
import type { CdrStore } from "./cdr-store.js";
import type { CdrCall } from "./generate-cdr-day.js";
import { hash32, Rng } from "./prng.js";
import type { SandboxClock } from "./sandbox-clock.js";
import { DAY_MS } from "./sandbox-options.js";
import type { SandboxAccount, SandboxWorld } from "./world.js";

interface ScheduledEvent {
  readonly atMs: number;
  readonly url: string;
  readonly body: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 19) + "Z");
const INTERNATIONAL_RATE_MICROS = 250_000;

/**
 * Calls started through `POST /v1/calls`: each gets a seeded outcome, a CDR that becomes visible
 * once the call ends, and status events (call_setup, ringing, then answered + completed, busy,
 * cancelled or rejected) POSTed to its `callback_url` when the sandbox clock reaches them. Events
 * are delivered in order, by a timer while any are pending and on every clock change.
 */
export class CallCenter {
  private readonly queue: ScheduledEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  /** Delivery outcomes, for the admin stats. */
  readonly deliveries = { delivered: 0, failed: 0 };

  constructor(
    private readonly world: SandboxWorld,
    private readonly store: CdrStore,
    private readonly clock: SandboxClock,
  ) {}

  /** Starts a call; the caller has checked `from` belongs to `account`. */
  start(account: SandboxAccount, request: StartCallRequest): Call {
    this.started += 1;
    const n = this.started;
    const rng = new Rng(hash32(this.world.seed, "api-call", n));
    const t0 = this.clock.now();
    const dayNumber = Math.floor(t0 / DAY_MS);
    const uuid = encodeCallUuid(
      this.world.seed,
      { account: account.index, dayNumber, index: n, kind: 1 },
      rng,
    );
    const timeoutS = request.timeout ?? 30;
    const ringS = rng.int(2, 12);
    let disposition: CdrDisposition = rng.weighted(
      ["answered", "busy", "noanswer", "failed"] as const,
      [75, 10, 10, 5],
    );
    if (disposition === "answered" && ringS > timeoutS) disposition = "noanswer";
    const answered = disposition === "answered";
    const duration = answered ? rng.int(15, 240) : 0;
    const answeredMs = answered ? t0 + ringS * 1000 : null;
    const endMs =
      disposition === "noanswer"
        ? t0 + timeoutS * 1000
        : disposition === "failed"
          ? t0 + 1500
          : t0 + (ringS + duration) * 1000;
    const machine = answered && (request.voicemail_detection ?? false) && rng.chance(0.2);
    const digits = request.to.slice(1);
    const dest = DESTINATIONS.find((d) => digits.startsWith(d.countryCode));
    const rate = dest?.ratePerMinuteMicros ?? INTERNATIONAL_RATE_MICROS;
    const minutes = Math.ceil(duration / 60);
    const cdr: CdrCall = {
      index: n,
      dayNumber,
      uuid,
      direction: "placed",
      startMs: t0,
      endMs,
      visibleAtMs: endMs + 5000,
      late: false,
      disposition,
      duration,
      from: request.from,
      to: digits,
      destination: dest?.label ?? "International",
      perMinuteMicros: disposition === "failed" ? null : rate,
      chargeMicros: disposition === "failed" ? null : rate * minutes,
      sipTrunk: null,
      forwardFeeMicros: null,
      parentUuid: null,
      answeredBy: request.voicemail_detection && answered ? (machine ? "machine" : "human") : null,
      recordingUrl:
        answered && request.recording ? `https://recordings.sandbox.test/${account.id}/${uuid}.mp3` : null,
      transcription: null,
    };
    this.store.addLive(account, cdr);
    const base: Call = {
      uuid,
      direction: "outbound",
      event_type: "call_setup",
      event_time: iso(t0)!,
      event_payload: null,
      from: request.from,
      to: request.to,
      call_started: iso(t0)!,
      call_answered: null,
      call_completed: null,
      machine_detected: false,
      tag: request.tag ?? "",
    };
    const event = (type: CallEventType, atMs: number, extra: Partial<Call> = {}) =>
      this.schedule(atMs, request.callback_url, {
        ...base,
        ...extra,
        event_type: type,
        event_time: iso(atMs)!,
      });
    event("call_setup", t0);
    event("ringing", t0 + 1000);
    const final = { call_completed: iso(endMs) };
    if (answered) {
      event("answered", answeredMs!, { call_answered: iso(answeredMs), machine_detected: machine });
      event("completed", endMs, { call_answered: iso(answeredMs), machine_detected: machine, ...final });
    } else if (disposition === "busy") event("busy", endMs, final);
    else if (disposition === "noanswer") event("cancelled", endMs, final);
    else event("rejected", endMs, final);
    this.pump();
    return base;
  }

  private schedule(atMs: number, url: string, body: Call): void {
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.atMs > atMs) i--;
    this.queue.splice(i, 0, { atMs, url, body: JSON.stringify(body) });
  }

  /** Sends every event due at the current sandbox time (in order); keeps a timer while any are pending. */
  pump(): void {
    const nowMs = this.clock.now();
    while (this.queue.length > 0 && this.queue[0]!.atMs <= nowMs) {
      const due = this.queue.shift()!;
      this.chain = this.chain.then(() => this.deliver(due));
    }
    if (this.queue.length > 0 && !this.timer) {
      this.timer = setInterval(() => this.pump(), 200);
      this.timer.unref();
    } else if (this.queue.length === 0 && this.timer) this.stop();
  }

  private async deliver(event: ScheduledEvent): Promise<void> {
    try {
      const res = await fetch(event.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: event.body,
        signal: AbortSignal.timeout(5000),
      });
      await res.arrayBuffer();
      if (res.ok) this.deliveries.delivered += 1;
      else this.deliveries.failed += 1;
    } catch {
      this.deliveries.failed += 1;
    }
  }

  /** Stops the delivery timer (pending events stay queued). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
