/**
 * The flags that let a command take a TELECOM_ETL_NOW far from this machine's clock: defined once,
 * so the error that advises one and every command that accepts it (`run`, `nightly`, `backfill`,
 * `recount`, `check`) spell it the same.
 */
import type { Command } from "commander";

/** Accepts a TELECOM_ETL_NOW more than a day ahead of this machine's clock. */
export const ALLOW_FUTURE_NOW_FLAG = "--allow-future-now";
/** Accepts a TELECOM_ETL_NOW more than a day behind this machine's clock. */
export const ALLOW_PAST_NOW_FLAG = "--allow-past-now";

/** How the clock of a run may be moved: {@link ALLOW_FUTURE_NOW_FLAG}, {@link ALLOW_PAST_NOW_FLAG}. */
export interface NowOverrides {
  readonly allowFutureNow?: boolean;
  readonly allowPastNow?: boolean;
}

/** Adds {@link ALLOW_FUTURE_NOW_FLAG} and {@link ALLOW_PAST_NOW_FLAG} to a command. */
export function withNowFlags(command: Command): Command {
  return command
    .option(ALLOW_FUTURE_NOW_FLAG, "accept a TELECOM_ETL_NOW more than a day ahead of this machine's clock")
    .option(ALLOW_PAST_NOW_FLAG, "accept a TELECOM_ETL_NOW more than a day behind this machine's clock");
}

/** The clock overrides a command's parsed flags give. */
export function nowOverridesFrom(options: Readonly<Record<string, unknown>>): NowOverrides {
  return { allowFutureNow: options.allowFutureNow === true, allowPastNow: options.allowPastNow === true };
}
