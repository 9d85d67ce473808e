import type { HttpMethod } from "@telecom-etl/platform/permissions.js";
import type { FaultDecision } from "../faults/fault-injector.js";
import type { SandboxRequest, SandboxResponse } from "../http/http-kit.js";
import type { ApiKeyRecord } from "../http/key-registry.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import type { SandboxAccount } from "../world.js";

/** What a platform route handler receives: the request, the caller's key and account, path params. */
export interface RouteContext {
  readonly runtime: SandboxRuntime;
  readonly request: SandboxRequest;
  readonly key: ApiKeyRecord;
  readonly account: SandboxAccount;
  readonly params: Readonly<Record<string, string>>;
  /** Faults chosen for this request (page faults are applied by list routes). */
  readonly faults: FaultDecision;
}

/** A platform route: method, path template (as in `PLATFORM_ROUTES`) and its handler. */
export interface PlatformHandler {
  readonly method: HttpMethod;
  readonly path: string;
  readonly handle: (context: RouteContext) => SandboxResponse | Promise<SandboxResponse>;
  /** Extra fields of this route's 403 body (validation errors carry `error_code`). */
  readonly forbiddenExtra?: Readonly<Record<string, unknown>>;
}
