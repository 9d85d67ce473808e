/**
 * Sub-account fan-out: an account whose config lists `sub_accounts: [ids]` also reads every enabled
 * stream of each of those sub-accounts as an account of its own, named `<account>-sub-<id>`. Each
 * run fetches the sub-accounts' keys with the master's key (`GET /v1/sub-organizations/{id}`) and
 * keeps them in memory only, in a Secret: never logged, never stored (the `sub_accounts` stream
 * stores the record without its key).
 */

import { CATALOGUE, resourcePath, subAccountSchema } from "@telecom-etl/platform";
import type { ApiClient } from "../../api/http-client.js";
import { type AccountConfig, sourcesOf } from "../../config/config.js";
import { AuthError, describeError, EtlError } from "../../core/errors.js";
import { Secret } from "../../core/secret.js";
import { subAccountName } from "../../core/sub-account-name.js";
import { getStream } from "../../streams/registry.js";

/**
 * The accounts the sub-accounts of `master` are read as (their keys not fetched yet: an empty
 * Secret): the master's settings and enabled streams, except those the master reads for its
 * sub-accounts itself (`coversSubAccounts`: their records), so nothing is read twice.
 */
export function subAccountsOf(master: AccountConfig): AccountConfig[] {
  return sourcesOf(master).subAccounts.map((id) => ({
    name: subAccountName(master.name, id),
    baseUrl: master.baseUrl,
    apiKeyEnv: `${master.apiKeyEnv} (sub-account ${id})`,
    apiKey: new Secret(""),
    rate: master.rate,
    streams: master.streams.filter((stream) => getStream(stream).coversSubAccounts !== true),
    ...(master.apiRevision === undefined ? {} : { apiRevision: master.apiRevision }),
    subAccountOf: { account: master.name, id },
  }));
}

/**
 * The sub-account's own key, fetched with the master's client; throws an EtlError naming the
 * sub-account (never the key) when it cannot be had, or when the sub-account is disabled.
 */
export async function fetchSubAccountKey(
  masterClient: ApiClient,
  account: AccountConfig,
  signal?: AbortSignal,
): Promise<Secret> {
  const parent = account.subAccountOf!;
  const what = `the key of sub-account ${parent.id} (with account ${parent.account}'s key)`;
  let body: unknown;
  try {
    const response = await masterClient.getJson(
      resourcePath(CATALOGUE.sub_account, "2024", [String(parent.id)]),
      {},
      {
        stream: "sub_accounts",
        permission: CATALOGUE.sub_account.permission,
        signal,
      },
    );
    if (response.status === 404) throw new EtlError(`the platform knows no sub-account ${parent.id}`);
    body = response.body;
  } catch (error) {
    // The master's key refused, its host unreachable: the sub-account stops with its master.
    if (error instanceof AuthError) throw error;
    throw new EtlError(
      `could not fetch ${what}: ${describeError(error)}; check sub_accounts of account ${parent.account}`,
      {
        account: account.name,
      },
    );
  }
  const parsed = subAccountSchema.safeParse(body);
  if (!parsed.success) {
    throw new EtlError(`could not fetch ${what}: the answer is not a sub-account`, { account: account.name });
  }
  if (parsed.data.status !== "enabled") {
    throw new EtlError(
      `sub-account ${parent.id} of account ${parent.account} is ${parsed.data.status}: its streams are not read`,
      {
        account: account.name,
      },
    );
  }
  return new Secret(parsed.data.api_key);
}
