/**
 * The one writer of the process's stderr lines (log records, one-line errors, notices). While
 * progress bars are drawn, a line written straight to the terminal would land inside a bar and
 * be overdrawn; so the bars route lines through themselves (printed above the bars, whole) for as
 * long as they are shown, and everything else writes here, never to `process.stderr` directly.
 */

/** Where stderr lines go; `routeAbove` diverts them while something (the bars) owns the bottom of the screen. */
export class StderrLines {
  private above: ((text: string) => void) | undefined;

  constructor(private readonly write_: (text: string) => void) {}

  /** Writes `text` (one or more whole lines, each ending in a newline). */
  write(text: string): void {
    if (this.above === undefined) this.write_(text);
    else this.above(text);
  }

  /**
   * Sends every line to `print` until the returned function is called (then to stderr again).
   * `print` must show each line whole, above whatever it draws.
   */
  routeAbove(print: (text: string) => void): () => void {
    this.above = print;
    return () => {
      if (this.above === print) this.above = undefined;
    };
  }
}

/** The process's stderr. Writes to a pipe, a file or a terminal are synchronous on Linux, so lines keep their order. */
export const processStderr = new StderrLines((text) => process.stderr.write(text));
