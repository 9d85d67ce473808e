import type { IncomingHttpHeaders } from "node:http";
import { ERROR_MESSAGES, invalidParameterMessage } from "@telecom-etl/platform/common.js";
import { dayMsOf } from "../sandbox-options.js";

/** A parsed request as route handlers see it. */
export interface SandboxRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Client IPv4 address (IPv4-mapped IPv6 unwrapped). */
  readonly ip: string;
  /** Raw request body (empty string when none). */
  readonly body: string;
}

/** What a handler answers. `body` is already serialized JSON (or NDJSON for truth exports). */
export interface SandboxResponse {
  readonly status: number;
  readonly body: string | Buffer;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON answer from an already-serialized body. */
export function rawJson(
  status: number,
  body: string | Buffer,
  headers?: Record<string, string>,
): SandboxResponse {
  return headers ? { status, body, headers } : { status, body };
}

/** A JSON answer from a value. */
export function json(status: number, value: unknown): SandboxResponse {
  return { status, body: JSON.stringify(value) };
}

/** The platform's error body: `{"success": false, "message": ...}` plus extra fields. */
export function errorResponse(
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): SandboxResponse {
  return json(status, { success: false, message, ...extra });
}

/** 401 exactly as the platform answers it. */
export const unauthorized = (): SandboxResponse =>
  json(401, { success: false, error: true, message: ERROR_MESSAGES.unauthorized });

/** 403 (missing permission, IP outside the allowlist). */
export const forbidden = (extra: Readonly<Record<string, unknown>> = {}): SandboxResponse =>
  errorResponse(403, ERROR_MESSAGES.forbidden, extra);

/** 404 for an unknown id or path. */
export const notFound = (extra: Record<string, unknown> = {}): SandboxResponse =>
  errorResponse(404, ERROR_MESSAGES.notFound, extra);

/** Thrown by parameter and body parsers; the server turns it into a 400/422 answer. */
export class ParamError extends Error {
  constructor(
    readonly status: 400 | 422,
    readonly parameter: string,
  ) {
    super(invalidParameterMessage(parameter));
  }
}

/** A required `YYYY-MM-DD` query parameter as epoch ms: 400 when missing or malformed. */
export function requireDate(query: URLSearchParams, name: string): number {
  const value = query.get(name);
  const ms = value === null ? null : dayMsOf(value);
  if (ms === null) throw new ParamError(400, name);
  return ms;
}

/** An optional query parameter from a closed set: 400 when missing and required, 422 when not in the set. */
export function enumParam<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const value = query.get(name);
  if (value === null || value === "") {
    if (fallback === undefined) throw new ParamError(400, name);
    return fallback;
  }
  if (!(allowed as readonly string[]).includes(value)) throw new ParamError(422, name);
  return value as T;
}

/** An optional `YYYY-MM-DD` query parameter as epoch ms, or null when absent: 422 when present but malformed. */
export function optionalDate(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null || value === "") return null;
  const ms = dayMsOf(value);
  if (ms === null) throw new ParamError(422, name);
  return ms;
}

/** An optional query parameter from a closed set, or null when absent: 422 when not in the set. */
export function optionalEnum<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | null {
  const value = query.get(name);
  if (value === null || value === "") return null;
  if (!(allowed as readonly string[]).includes(value)) throw new ParamError(422, name);
  return value as T;
}

/** An optional free-text query parameter, or null when absent or empty. */
export function optionalText(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  return value === null || value === "" ? null : value;
}

/** An optional positive integer query parameter: 400 when not an integer >= 1. */
export function positiveIntParam(query: URLSearchParams, name: string, fallback: number): number {
  const value = query.get(name);
  if (value === null || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647)
    throw new ParamError(400, name);
  return Number(value);
}

/** A boolean query parameter (`true|false|1|0`): 400 otherwise. */
export function booleanParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null || value === "") return fallback;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new ParamError(400, name);
}

/** Parses a JSON request body to an object, or throws a 400 naming `body`. */
export function jsonBody(request: SandboxRequest): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(request.body === "" ? "{}" : request.body);
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
    return value as Record<string, unknown>;
  } catch {
    throw new ParamError(400, "body");
  }
}
