import type { ServerResponse } from "node:http";
import type { RequestFault } from "../faults/fault-profile.js";
import type { SandboxResponse } from "./http-kit.js";

function headers(response: SandboxResponse, length: number): Record<string, string | number> {
  return {
    "content-type": response.contentType ?? "application/json",
    "content-length": length,
    ...response.headers,
  };
}

/** Writes a complete answer. */
export function send(res: ServerResponse, response: SandboxResponse): void {
  const body = typeof response.body === "string" ? Buffer.from(response.body, "utf8") : response.body;
  res.writeHead(response.status, headers(response, body.length));
  res.end(body);
}

/**
 * Writes an answer, damaged when the request drew a body fault: `truncated` sends a consistent
 * but cut body (invalid JSON), `reset` announces the full length, sends part of it and drops the
 * connection. `salt` picks where the body is cut.
 */
export function deliver(
  res: ServerResponse,
  response: SandboxResponse,
  fault: RequestFault | null,
  salt: number,
): void {
  if (fault !== "truncated" && fault !== "reset") {
    send(res, response);
    return;
  }
  const body = typeof response.body === "string" ? Buffer.from(response.body, "utf8") : response.body;
  const cut = Math.max(1, Math.floor(body.length * (0.2 + (salt % 600) / 1000)));
  if (fault === "truncated") {
    res.writeHead(response.status, headers(response, cut));
    res.end(body.subarray(0, cut));
    return;
  }
  res.writeHead(response.status, headers(response, body.length));
  res.write(body.subarray(0, cut), () => res.socket?.destroy());
}
