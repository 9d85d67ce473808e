/**
 * Which (account, streams) a command works on: the configured accounts and their enabled streams,
 * narrowed by `--accounts` and `--streams`. Unknown names and empty selections are usage errors
 * naming what is configured.
 */
import type { AccountConfig, EtlConfig } from "../../config/config.js";
import { UsageError } from "../../core/errors.js";
import { getStream } from "../../streams/registry.js";
import type { StreamDefinition } from "../../streams/stream-definition.js";
import { subAccountsOf } from "../clients/sub-account-fan-out.js";

/** One account and the streams to run for it. */
export interface RunTarget {
  readonly account: AccountConfig;
  readonly streams: readonly StreamDefinition[];
}

/**
 * Accounts named in `accounts` (all when absent), each with its enabled streams among `streams`
 * (all when absent). The sub-accounts an account lists come right after it, as accounts of their
 * own (see sub-account-fan-out.ts): selected with their master, or by their own name; with
 * `exactAccounts` (a distributed work unit) a master selects itself only.
 */
export function selectRunTargets(
  config: EtlConfig,
  accounts?: readonly string[],
  streams?: readonly string[],
  exactAccounts = false,
): RunTarget[] {
  const all = config.accounts.flatMap((account) => [account, ...subAccountsOf(account)]);
  requireKnownAccounts(
    accounts,
    all.map((a) => a.name),
    "configured",
  );
  const wanted: readonly string[] | undefined = streams?.map((name) => getStream(name).name);
  const targets: RunTarget[] = [];
  for (const account of all) {
    const selectedBy = account.subAccountOf?.account;
    const selected =
      accounts === undefined ||
      accounts.includes(account.name) ||
      (!exactAccounts && selectedBy !== undefined && accounts.includes(selectedBy));
    if (!selected) continue;
    const names = account.streams.filter((name) => wanted === undefined || wanted.includes(name));
    for (const name of names) requirePrerequisites(account, getStream(name));
    if (names.length > 0) targets.push({ account, streams: names.map(getStream) });
  }
  for (const name of wanted ?? []) {
    if (!targets.some((t) => t.streams.some((s) => s.name === name))) {
      throw new UsageError(
        `stream ${name} is not enabled for the selected accounts; check "streams" in the config`,
      );
    }
  }
  if (targets.length === 0)
    throw new UsageError("nothing to run: no account with an enabled stream was selected");
  return targets;
}

/**
 * A stream's prerequisites (`requires`) must be enabled for its account: transcriptions find
 * their calls in `cdrs` and which of them can have one in `sip_trunks`' and `numbers`' settings,
 * so without them a run would load a fraction and exit 0. A UsageError (exit 2) names what to add.
 */
function requirePrerequisites(account: AccountConfig, stream: StreamDefinition): void {
  const missing = (stream.requires ?? []).filter((name) => !account.streams.includes(name));
  if (missing.length === 0) return;
  throw new UsageError(
    `account ${account.name}: stream ${stream.name} needs ${missing.join(" and ")} enabled too (it reads what their tables hold); add ${missing.join(", ")} to the account's streams`,
  );
}

/**
 * Throws a UsageError for the first of `names` not among `known`, listing them (`known` is what the
 * command can act on: configured accounts, plus those with data in the warehouse for some commands).
 */
export function requireKnownAccounts(
  names: readonly string[] | undefined,
  known: readonly string[],
  knownAs = "known",
): void {
  for (const name of names ?? []) {
    if (!known.includes(name)) {
      throw new UsageError(
        `unknown account ${JSON.stringify(name)}; ${knownAs}: ${known.join(", ") || "(none)"}`,
      );
    }
  }
}
