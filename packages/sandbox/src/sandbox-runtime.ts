import { AccountState } from "./account-state.js";
import { CallCenter } from "./call-center.js";
import { FunnelStore } from "./campaign-funnel.js";
import { CdrQuery } from "./cdr-query.js";
import { CdrStore } from "./cdr-store.js";
import { FaultInjector } from "./faults/fault-injector.js";
import { RateLimiter } from "./faults/rate-limiter.js";
import { KeyRegistry } from "./http/key-registry.js";
import { InvoiceBook } from "./invoice-book.js";
import { LedgerBook } from "./ledger-book.js";
import { MessageStore } from "./message-store.js";
import { SandboxClock } from "./sandbox-clock.js";
import type { ResolvedSandboxOptions } from "./sandbox-options.js";
import { cdrIdFieldsOf } from "./serialize-cdr.js";
import { ShortLinkStore } from "./short-link-store.js";
import { RequestStats } from "./stats.js";
import { TrunkUsage } from "./trunk-usage.js";
import { buildWorld, type SandboxAccount, type SandboxWorld } from "./world.js";

/** Everything a running sandbox holds: the world, its lazily generated streams, the clock, keys, stats. */
export class SandboxRuntime {
  readonly world: SandboxWorld;
  readonly clock: SandboxClock;
  readonly funnel: FunnelStore;
  readonly cdrs: CdrStore;
  readonly cdrQuery: CdrQuery;
  readonly shortLinks: ShortLinkStore;
  readonly messages: MessageStore;
  readonly invoices: InvoiceBook;
  readonly ledger: LedgerBook;
  readonly keys: KeyRegistry;
  readonly stats = new RequestStats();
  readonly faults: FaultInjector;
  readonly limiter: RateLimiter;
  readonly state: AccountState;
  readonly calls: CallCenter;
  /** Month-to-date outbound totals of the trunks (`GET /v1/trunks`). */
  readonly trunkUsage: TrunkUsage;

  constructor(readonly options: ResolvedSandboxOptions) {
    this.world = buildWorld(options);
    this.clock = new SandboxClock(options.now);
    this.funnel = new FunnelStore(this.world);
    this.cdrs = new CdrStore(
      this.world,
      options.cacheRows,
      cdrIdFieldsOf(options.apiRevision, options.dropDeprecated),
      this.funnel,
    );
    this.cdrQuery = new CdrQuery(this.cdrs);
    this.trunkUsage = new TrunkUsage(this.cdrs);
    this.shortLinks = new ShortLinkStore(this.world, this.funnel);
    this.messages = new MessageStore(this.world);
    this.invoices = new InvoiceBook(this.world, this.cdrs, this.messages);
    this.ledger = new LedgerBook(this.world, this.cdrs, this.messages);
    this.keys = new KeyRegistry(this.world);
    this.faults = new FaultInjector(options.faults, options.seed);
    this.limiter = new RateLimiter(options.rateLimit);
    this.state = new AccountState(this.world);
    this.calls = new CallCenter(this.world, this.cdrs, this.clock);
  }

  /** The account called `name`, if any. */
  account(name: string): SandboxAccount | undefined {
    return this.world.accounts.find((a) => a.name === name);
  }
}
