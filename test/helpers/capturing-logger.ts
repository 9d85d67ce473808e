import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "../../src/log.js";

/** A pino logger writing JSON lines into `lines` (to look for secrets and messages). */
export function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(line);
      done();
    },
  });
  return pino({ level: "debug" }, sink);
}
