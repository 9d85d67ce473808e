import { Writable } from "node:stream";
import { pino } from "pino";
import type { KnownSecrets } from "../../src/core/known-secrets.js";
import { createLogger, type Logger } from "../../src/core/log.js";

/**
 * A logger writing JSON lines into `lines` (to look for secrets and messages), at debug level; with
 * `secrets`, the product's own logger (as the CLI builds it), which masks them in every line.
 */
export function capturingLogger(lines: string[], secrets?: KnownSecrets): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(line);
      done();
    },
  });
  return secrets === undefined
    ? pino({ level: "debug" }, sink)
    : createLogger("debug", false, { secrets, destination: sink });
}
