import { type DestinationStream, type Logger, pino } from "pino";
import type { KnownSecrets } from "./known-secrets.js";

export type { Logger } from "pino";

/** Log levels accepted by `--log-level`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys whose values are never written to a log line, wherever they appear. */
const REDACT_PATHS = [
  "apiKey",
  "api_key",
  "*.apiKey",
  "*.api_key",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "password",
  "*.password",
  "access_token",
  "*.access_token",
  "accessToken",
  "*.accessToken",
  "databaseUrl",
  "*.databaseUrl",
];

/** Where the process logger writes, and what it masks. */
export interface LoggerOptions {
  /** Every line is cleared of these secrets (by value) just before it is written. */
  readonly secrets?: KnownSecrets;
  /** Where JSON lines go (default stderr); tests capture them. Ignored when pretty. */
  readonly destination?: DestinationStream;
}

/**
 * Builds the process logger: JSON lines on stderr when stderr is not a terminal (cron, CI, k8s),
 * human-readable lines on a terminal. Fields named like keys and passwords are redacted by path;
 * with `secrets`, every known secret is masked wherever it appears in a line (message included).
 */
export function createLogger(
  level: LogLevel = "info",
  pretty = process.stderr.isTTY === true,
  { secrets, destination }: LoggerOptions = {},
): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: "***" },
    base: { pid: process.pid },
    ...(secrets === undefined ? {} : { hooks: { streamWrite: (line: string) => secrets.maskText(line) } }),
  };
  if (pretty) {
    return pino({
      ...options,
      transport: {
        target: "pino-pretty",
        options: { destination: 2, colorize: true, ignore: "pid,hostname", translateTime: "HH:MM:ss" },
      },
    });
  }
  return pino(options, destination ?? pino.destination({ fd: 2, sync: true }));
}

/** A logger that discards everything, for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
