/**
 * The platform clients of a run: one per account, each on the rate budget of its API key (shared
 * by every account and stream using that key). A sub-account read as an account of its own gets
 * its key fetched first, with its master's client (see sub-account-fan-out.ts), and a budget of
 * its own key. With `sharedBuckets`, each key's tokens come from its bucket in the warehouse,
 * shared with the other worker processes using the key.
 */
import { type ApiClient, createApiClient } from "../../api/http-client.js";
import type { SharedRateBuckets } from "../../api/shared-token-bucket.js";
import type { AccountConfig, EtlConfig } from "../../config/config.js";
import type { KnownSecrets } from "../../core/known-secrets.js";
import type { Logger } from "../../core/log.js";
import type { Clock, Sleep } from "../../core/ports.js";
import { createKeyBudgets, type KeyBudget } from "./key-budgets.js";
import { fetchSubAccountKey } from "./sub-account-fan-out.js";

/** An account ready to read: the account (with its key), its client and its key's budget. */
export type AccountClient =
  | { readonly account: AccountConfig; readonly client: ApiClient; readonly budget: KeyBudget }
  /** A sub-account whose key could not be fetched: nothing of it is read. */
  | { readonly account: AccountConfig; readonly failure: Error };

/** What the clients of a run work with; `sharedBuckets`: one token bucket per key in the warehouse (default in memory). */
export interface AccountClientsDeps {
  readonly config: EtlConfig;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly log: Logger;
  readonly secrets: KnownSecrets;
  readonly sharedBuckets?: SharedRateBuckets | undefined;
}

/** Clients and budgets of one run; `close` when it ends. */
export class AccountClients {
  /** Every budget created so far (for the run's summary). */
  readonly budgets: KeyBudget[];
  readonly #deps: AccountClientsDeps;
  readonly #clients = new Map<string, ApiClient>();

  /** `accounts`: the run's accounts with keys of their own (not sub-accounts); their budgets are made now. */
  constructor(deps: AccountClientsDeps, accounts: readonly AccountConfig[]) {
    this.#deps = deps;
    this.budgets = createKeyBudgets(accounts, deps);
  }

  /** The client of `account`, fetching a sub-account's key first. */
  async clientFor(account: AccountConfig, signal?: AbortSignal): Promise<AccountClient> {
    let ready = account;
    if (account.subAccountOf !== undefined) {
      const masterClient = (await this.clientFor(this.#masterOf(account), signal)) as { client: ApiClient };
      try {
        ready = { ...account, apiKey: await fetchSubAccountKey(masterClient.client, account, signal) };
        this.#deps.secrets.learn(ready.apiKey.reveal());
      } catch (error) {
        return { account, failure: error as Error };
      }
    }
    const budget = this.#budgetOf(ready);
    let client = this.#clients.get(ready.name);
    if (client === undefined) {
      client = createApiClient({
        baseUrl: ready.baseUrl,
        apiKey: ready.apiKey.reveal(),
        account: ready.name,
        apiKeyEnvVar: ready.apiKeyEnv,
        budget: budget.budget,
        timeouts: this.#deps.config.timeouts,
        retry: this.#deps.config.retry,
        sleep: this.#deps.sleep,
        clock: this.#deps.clock,
        log: this.#deps.log,
        secrets: this.#deps.secrets,
      });
      this.#clients.set(ready.name, client);
    }
    return { account: ready, client, budget };
  }

  /**
   * The client a stream read with the master's key uses for `account`: its master's for a
   * sub-account (on the master's key and budget), the account's own otherwise.
   */
  masterClientFor(account: AccountConfig, signal?: AbortSignal): Promise<AccountClient> {
    return this.clientFor(account.subAccountOf === undefined ? account : this.#masterOf(account), signal);
  }

  /** Closes every client's idle sockets. */
  close(): void {
    for (const client of this.#clients.values()) client.close();
  }

  #masterOf(account: AccountConfig): AccountConfig {
    return this.#deps.config.accounts.find((a) => a.name === account.subAccountOf!.account)!;
  }

  #budgetOf(account: AccountConfig): KeyBudget {
    const found = this.budgets.find((b) => b.accounts.includes(account.name));
    if (found) return found;
    const [created] = createKeyBudgets([account], this.#deps);
    this.budgets.push(created!);
    return created!;
  }
}
