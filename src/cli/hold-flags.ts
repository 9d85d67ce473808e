import type { Command } from "commander";
import { type AcceptedHolds, parseAcceptSpec } from "../pipeline/holds/accepted-holds.js";
import { collect } from "./parse-flags.js";

/** Adds `--accept-shrink` and `--accept-drift` (repeatable) to a loading command. */
export function withHoldFlags(command: Command): Command {
  return command
    .option(
      "--accept-shrink <account/stream[/day]>",
      "load a read that lists far fewer rows than the warehouse holds (the platform really deleted them); repeatable",
      collect,
    )
    .option(
      "--accept-drift <account/stream[/day]>",
      "load a read whose declared field vanished while a new one appeared (a rename), as it is; repeatable",
      collect,
    );
}

/** The holds the flags of {@link withHoldFlags} confirm; a malformed value is a UsageError naming the form. */
export function acceptedHoldsFrom(options: Readonly<Record<string, unknown>>): AcceptedHolds {
  const specs = (flag: string, values: unknown) =>
    ((values as string[] | undefined) ?? []).map((value) => parseAcceptSpec(flag, value));
  return {
    shrink: specs("--accept-shrink", options.acceptShrink),
    drift: specs("--accept-drift", options.acceptDrift),
  };
}
