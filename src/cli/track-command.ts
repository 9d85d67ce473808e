import type { Command } from "commander";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { systemClock } from "../core/ports.js";
import { trackIds } from "../warehouse/state/lookup-candidates.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `--submitted-at` as a Date (now when absent); a time that does not parse or lies ahead is a usage error. */
function submissionTime(text: string | undefined, nowMs: number): Date {
  if (text === undefined) return new Date(nowMs);
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2}))?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `--submitted-at: expected an ISO 8601 time like 2026-11-20T14:05:00Z, got "${text}"`,
    );
  }
  if (ms > nowMs + 5 * 60_000) throw new UsageError(`--submitted-at: ${text} is in the future`);
  return new Date(ms);
}

/** What `track` can follow: the tracked kind and where the id came from. */
const TRACKABLE = {
  transcription: { kind: "transcription", source: "file", what: "transcription request" },
  validation: { kind: "validation", source: "cli", what: "validation token" },
} as const;

/**
 * `telecom-etl track transcription|validation <id> [--account A]`: asks the next runs to poll an
 * asynchronous platform request the CDRs do not reveal (an uploaded file's transcription, a bulk
 * validation) until it is done. The id is kept in `etl.tracked_requests`; tracking it twice is a no-op.
 */
export function registerTrackCommand(program: Command, runtime: Runtime): void {
  const track = program
    .command("track")
    .description(
      "poll an asynchronous request on every run until it is done (transcription of a file, validation)",
    )
    .argument("<what>", "transcription or validation")
    .argument("<id>", "the transcription request id, or the validation token")
    .option("--account <name>", "the account the request belongs to (default: the only configured one)")
    .option(
      "--submitted-at <time>",
      "when the request was made (ISO 8601, e.g. 2026-11-20T14:05:00Z); default now. Dates a validation's charges in the marts",
    )
    .action(
      async (what: string, id: string, options: { account?: string; submittedAt?: string }, cmd: Command) => {
        const spec = (TRACKABLE as Readonly<Record<string, (typeof TRACKABLE)[keyof typeof TRACKABLE]>>)[
          what
        ];
        if (spec === undefined || !Object.hasOwn(TRACKABLE, what)) {
          throw new UsageError(`track: expected transcription or validation, got "${what}"`);
        }
        if (id.trim() === "" || /\s/.test(id))
          throw new UsageError(`track: expected an id without spaces, got "${id}"`);
        const submittedAt = submissionTime(options.submittedAt, systemClock.now());
        const code = await withCommandContext(
          globalOptions(cmd),
          runtime,
          { accounts: false, migrate: true },
          async (ctx) => {
            const configured = ctx.config.accounts.map((a) => a.name);
            const account = options.account ?? (configured.length === 1 ? configured[0] : undefined);
            if (account === undefined) {
              throw new UsageError(
                `track: --account is required when ${configured.length === 0 ? "no account is" : "several accounts are"} configured (${configured.join(", ") || "none"})`,
              );
            }
            if (!configured.includes(account)) {
              throw new UsageError(
                `unknown account ${JSON.stringify(account)}; configured: ${configured.join(", ") || "(none)"}`,
              );
            }
            const added = await trackIds(ctx.warehouse.db, {
              kind: spec.kind,
              account,
              ids: [id],
              source: spec.source,
              at: submittedAt,
            });
            ctx.out(
              ctx.json
                ? JSON.stringify({ account, kind: spec.kind, id, added: added > 0 })
                : added > 0
                  ? `tracking ${spec.what} ${id} for account ${account}: every run asks for it until it is done`
                  : `${spec.what} ${id} of account ${account} was tracked already; nothing changed`,
            );
            return EXIT.ok;
          },
        );
        runtime.setExitCode(code);
      },
    );
  withExample(
    track,
    "telecom-etl track transcription 8e0c7a52-1d3f-4b8e-9f51-2f9a6c1d7e44 --account acme",
    "telecom-etl track validation 3f2a1b9c-77e1-4d5a-a0b2-9c8d7e6f5a41",
  );
}
