import { describe, expect, it } from "vitest";
import { classifyResponse, platformMessageOf, type RequestContext } from "../../src/api/response-outcome.js";
import { AuthError, EtlError, PermissionError, RetryableError, SliceError } from "../../src/core/errors.js";

const request: RequestContext = {
  account: "acme",
  stream: "invoices",
  method: "GET",
  path: "/v1/billing/invoices?page=2&per_page=100",
  permission: "billing:read",
  apiKeyEnvVar: "TELECOM_ACME_API_KEY",
};

function errorOf(
  status: number,
  message: string | undefined,
  req: RequestContext = request,
  retryAfterMs?: number,
) {
  const outcome = classifyResponse(status, message, req, retryAfterMs);
  if (outcome.kind !== "error")
    throw new Error(`expected an error outcome for ${status}, got ${outcome.kind}`);
  return outcome.error;
}

describe("classifyResponse", () => {
  it("names the server (scheme, host, port of the base URL) when the request knows it", () => {
    const remote = { ...request, origin: "https://api.platform.test:8443" };
    expect(errorOf(503, "down", remote).message).toBe(
      'account acme, stream invoices: GET https://api.platform.test:8443/v1/billing/invoices?page=2&per_page=100: HTTP 503: "down"',
    );
    expect(errorOf(401, undefined, remote).message).toContain(
      "(401 Unauthorized) on GET https://api.platform.test:8443/v1/billing/invoices?page=2",
    );
  });

  it("lets 2xx through, 202 included", () => {
    expect(classifyResponse(200, undefined, request)).toEqual({ kind: "ok" });
    expect(classifyResponse(202, "The transcription is still pending", request)).toEqual({ kind: "ok" });
  });

  it("hands 404 back to the caller with the platform's message", () => {
    expect(classifyResponse(404, "Record not found", request)).toEqual({
      kind: "not-found",
      platformMessage: "Record not found",
    });
  });

  it("401: AuthError naming the account and the env var to check", () => {
    const error = errorOf(401, "Unauthorized");
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toBe(
      'account acme: the platform rejected the API key (401 Unauthorized: "Unauthorized") on GET /v1/billing/invoices?page=2&per_page=100; check the API key in env var TELECOM_ACME_API_KEY',
    );
    expect(errorOf(401, undefined, { ...request, apiKeyEnvVar: undefined }).message).toContain(
      "check the API key configured for this account",
    );
  });

  it("403: PermissionError naming the missing permission", () => {
    const error = errorOf(403, "The service is not provisioned for your account.");
    expect(error).toBeInstanceOf(PermissionError);
    expect(error.message).toBe(
      'account acme, stream invoices: GET /v1/billing/invoices?page=2&per_page=100: the API key lacks the permission billing:read (403 Forbidden: "The service is not provisioned for your account."); grant billing:read to the key or drop the stream for this account',
    );
    expect(errorOf(403, undefined, { ...request, permission: undefined }).message).toContain(
      "the API key lacks a permission this request needs (403 Forbidden)",
    );
  });

  it.each([400, 422])("%i: SliceError with the platform's message", (status) => {
    const error = errorOf(status, "Missing or invalid parameter from");
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toBe(
      `account acme, stream invoices: GET /v1/billing/invoices?page=2&per_page=100: the platform refused the request (${status}: "Missing or invalid parameter from")`,
    );
  });

  it.each([429, 500, 502, 503, 504, 408, 599])("%i: RetryableError", (status) => {
    const error = errorOf(status, "busy", request, 7000);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as RetryableError).retryAfterMs).toBe(7000);
  });

  it("429 says it was rate limited", () => {
    expect(errorOf(429, undefined).message).toBe(
      "account acme, stream invoices: GET /v1/billing/invoices?page=2&per_page=100: rate limited (429)",
    );
  });

  it.each([301, 405, 409, 410])("%i: SliceError (unexpected)", (status) => {
    const error = errorOf(status, undefined);
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toContain(`unexpected HTTP ${status}`);
  });

  it("puts method, path, status, platform message, account and stream on every error", () => {
    for (const status of [400, 401, 403, 422, 429, 500]) {
      const error = errorOf(status, "why");
      expect(error).toBeInstanceOf(EtlError);
      expect(error.context).toEqual({
        account: "acme",
        stream: "invoices",
        method: "GET",
        path: "/v1/billing/invoices?page=2&per_page=100",
        status,
        platformMessage: "why",
      });
    }
  });
});

describe("platformMessageOf", () => {
  it("reads the platform's error body", () => {
    expect(platformMessageOf({ success: false, error: true, message: "Unauthorized" })).toBe("Unauthorized");
    expect(platformMessageOf({ success: false, error: "bad thing" })).toBe("bad thing");
    expect(platformMessageOf("  plain text  ")).toBe("plain text");
  });

  it("returns undefined when there is nothing to say", () => {
    expect(platformMessageOf(null)).toBeUndefined();
    expect(platformMessageOf({ success: false })).toBeUndefined();
    expect(platformMessageOf([1, 2])).toBeUndefined();
    expect(platformMessageOf("")).toBeUndefined();
  });

  it("keeps messages short", () => {
    expect(platformMessageOf({ message: "x".repeat(2000) })).toHaveLength(500);
  });
});
