/** Whether a failed statement lost its connection, so the same work may succeed on another one. */
import { describeError } from "../../core/errors.js";

/** Server codes of a backend that ended (admin shutdown, crash shutdown, cannot connect now). */
const CONNECTION_LOST_CODES = new Set(["57P01", "57P02", "57P03"]);

/** True when `error` says the connection died (so the same load may succeed on another one). */
export function isConnectionLoss(error: unknown, connection: { lost: boolean }): boolean {
  if (connection.lost) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || CONNECTION_LOST_CODES.has(code))) return true;
  const message = describeError(error);
  return /connection terminated|connection ended|terminating connection|ECONNRESET|EPIPE|not queryable|connection error/i.test(
    message,
  );
}
