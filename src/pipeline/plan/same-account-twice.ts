/**
 * A sub-account the fan-out reads (`<master>-sub-<id>`) that is also configured as an account of
 * its own would be loaded twice, under two names (1,834 CDRs, $56.69, counted twice). The platform
 * documents no way to ask which account a key belongs to, but the fan-out fetches each
 * sub-account's key: a configured account whose key is that key is the same platform account.
 * Compared in memory only; the message names the config entries, never the key.
 */
import type { AccountConfig } from "../../config/config.js";
import { UsageError } from "../../core/errors.js";

/**
 * Throws a UsageError (exit 2) naming both config entries when a sub-account whose key the fan-out
 * fetched (`readies`: accounts with their keys, sub-accounts among them) is also configured as an
 * account of its own (`configured`: every account of the config, with its key from the env).
 */
export function refuseSameAccountTwice(
  readies: readonly AccountConfig[],
  configured: readonly AccountConfig[],
): void {
  for (const sub of readies) {
    const parent = sub.subAccountOf;
    if (parent === undefined) continue;
    const key = sub.apiKey.reveal();
    if (key === "") continue;
    const index = configured.findIndex((a) => a.subAccountOf === undefined && a.apiKey.reveal() === key);
    if (index < 0) continue;
    const own = configured[index]!;
    const masterIndex = configured.findIndex((a) => a.name === parent.account);
    throw new UsageError(
      `config: accounts.${index} (account ${own.name}, key from ${own.apiKeyEnv}) is sub-account ${parent.id} ` +
        `listed in accounts.${masterIndex}.sub_accounts (account ${parent.account}): the same platform account would be ` +
        `loaded twice, as ${own.name} and ${sub.name}; remove ${parent.id} from ${parent.account}'s sub_accounts or remove account ${own.name}`,
    );
  }
}
