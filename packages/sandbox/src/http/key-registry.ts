import {
  hasPermission,
  type Permission,
  type PermissionLevel,
  type PermissionResource,
} from "@telecom-etl/platform/permissions.js";
import { hash32, Rng } from "../prng.js";
import type { SandboxAccount, SandboxWorld } from "../world.js";
import { forbidden, type SandboxRequest, type SandboxResponse, unauthorized } from "./http-kit.js";

/** An API key known to the sandbox: the seeded account keys and keys made with `POST /v1/api-keys`. */
export interface ApiKeyRecord {
  readonly id: number;
  readonly value: string;
  readonly label: string;
  readonly account: SandboxAccount;
  readonly isActive: boolean;
  readonly isRestriction: boolean;
  readonly permittedIps: readonly string[];
  /** Level per resource for a restricted key; null for an unrestricted key. */
  readonly permissions: Readonly<Partial<Record<PermissionResource, PermissionLevel>>> | null;
  readonly createdAtMs: number;
}

/** Settings of a new key. */
export interface NewApiKey {
  readonly label: string;
  readonly isActive: boolean;
  readonly isRestriction: boolean;
  readonly permittedIps: readonly string[];
  readonly permissions: Readonly<Partial<Record<PermissionResource, PermissionLevel>>> | null;
}

/** Every key of the sandbox, looked up by value. New keys are deterministic from the seed and their order. */
export class KeyRegistry {
  private readonly byValue = new Map<string, ApiKeyRecord>();
  private created = 0;

  constructor(private readonly world: SandboxWorld) {
    for (const account of world.accounts) {
      this.add({
        id: account.id * 10,
        value: account.apiKey,
        label: `${account.name} default`,
        account,
        isActive: true,
        isRestriction: false,
        permittedIps: [],
        permissions: null,
        createdAtMs: account.createdAtMs,
      });
    }
  }

  private add(record: ApiKeyRecord): void {
    this.byValue.set(record.value, record);
  }

  /** The key with this value, if any. */
  find(value: string): ApiKeyRecord | undefined {
    return this.byValue.get(value);
  }

  /** Creates a key for `account`. */
  create(account: SandboxAccount, settings: NewApiKey, nowMs: number): ApiKeyRecord {
    this.created += 1;
    const record: ApiKeyRecord = {
      ...settings,
      id: 900_000 + this.created,
      value: new Rng(hash32(this.world.seed, "created-key", this.created)).hex(32),
      account,
      createdAtMs: nowMs,
    };
    this.add(record);
    return record;
  }

  /** Every key (for the admin API). */
  all(): ApiKeyRecord[] {
    return [...this.byValue.values()];
  }
}

/** The key a request carries: `Authorization: Bearer`, else the deprecated `appid` query parameter. */
export function requestKey(request: SandboxRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === "string") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  return request.query.get("appid");
}

/** Resolves the caller's key: 401 when missing, unknown or inactive. */
export function authenticate(registry: KeyRegistry, request: SandboxRequest): ApiKeyRecord | SandboxResponse {
  const value = requestKey(request);
  const key = value === null ? undefined : registry.find(value);
  if (!key?.isActive) return unauthorized();
  return key;
}

/** 403 when the caller's IP is not allowed or the key lacks `permission`; null when allowed. */
export function authorize(
  key: ApiKeyRecord,
  request: SandboxRequest,
  permission: Permission,
  extra: Readonly<Record<string, unknown>> = {},
): SandboxResponse | null {
  if (key.isRestriction && !key.permittedIps.includes(request.ip)) return forbidden(extra);
  if (key.permissions !== null && !hasPermission(key.permissions, permission)) return forbidden(extra);
  return null;
}
