import { type Logger, pino } from "pino";

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
  "databaseUrl",
  "*.databaseUrl",
];

/**
 * Builds the process logger: JSON lines on stderr when stderr is not a terminal (cron, CI, k8s),
 * human-readable lines on a terminal.
 */
export function createLogger(level: LogLevel = "info", pretty = process.stderr.isTTY === true): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: "***" }, base: { pid: process.pid } };
  if (pretty) {
    return pino({
      ...options,
      transport: {
        target: "pino-pretty",
        options: { destination: 2, colorize: true, ignore: "pid,hostname", translateTime: "HH:MM:ss" },
      },
    });
  }
  return pino(options, pino.destination({ fd: 2, sync: true }));
}

/** A logger that discards everything, for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
