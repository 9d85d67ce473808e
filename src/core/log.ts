import { type DestinationStream, type Logger, pino } from "pino";
import { prettyFactory } from "pino-pretty";
import type { KnownSecrets } from "./known-secrets.js";
import { processStderr, type StderrLines } from "./stderr-lines.js";
import { printable } from "./terminal-text.js";

export type { Logger } from "pino";

/** Log levels accepted by `--log-level`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Formats accepted by `--log-format` / `TELECOM_ETL_LOG_FORMAT`: human lines, or one JSON object a line. */
export const LOG_FORMATS = ["pretty", "json"] as const;
/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

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
  /** Where JSON lines go instead of `lines` (tests capture them). Ignored when pretty. */
  readonly destination?: DestinationStream;
  /** Pretty lines in colour (default: stderr is a terminal and `NO_COLOR` is not set). */
  readonly color?: boolean;
  /** The stderr line writer (default the process's, which progress bars print above). */
  readonly lines?: StderrLines;
}

/**
 * True when colour may be used on stderr: it is a terminal and `NO_COLOR` (no-color.org: any
 * non-empty value) is not set.
 */
export function colorAllowed(
  env: NodeJS.ProcessEnv = process.env,
  isTty = process.stderr.isTTY === true,
): boolean {
  return isTty && (env.NO_COLOR ?? "") === "";
}

/**
 * Builds the process logger: one JSON object a line (the default when stderr is not a terminal:
 * cron, CI, k8s), or one human line a record (`HH:MM:ss LEVEL: message {fields}`, coloured only on
 * a terminal without `NO_COLOR`). Both go through the process's stderr line writer, in this thread
 * and synchronously, so a record is printed whole (above progress bars while they are drawn) and
 * before anything the command prints after it. Fields named like keys and passwords are redacted
 * by path; with `secrets`, every known secret is masked wherever it appears in a line. No line
 * carries what a terminal would act on (see terminal-text.ts): JSON escapes C0 controls, the rest
 * (C1, DEL, bidi overrides, which JSON leaves as they are) is removed from each line; pino-pretty
 * strips control characters from a message and shows other values as JSON.
 */
export function createLogger(
  level: LogLevel = "info",
  pretty = process.stderr.isTTY === true,
  { secrets, destination, color = colorAllowed(), lines = processStderr }: LoggerOptions = {},
): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: "***" },
    base: { pid: process.pid },
    hooks: {
      streamWrite: (line: string) => printable(secrets === undefined ? line : secrets.maskText(line)),
    },
  };
  if (pretty) {
    const format = prettyFactory({
      colorize: color,
      singleLine: true,
      ignore: "pid,hostname",
      translateTime: "HH:MM:ss",
    });
    return pino(options, { write: (line: string) => lines.write(format(line)) });
  }
  return pino(options, destination ?? { write: (line: string) => lines.write(line) });
}

/** A logger that discards everything, for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
