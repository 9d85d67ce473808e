/**
 * A minimal terminal for tests: replays what a program wrote to a terminal (text, CR, LF, and the
 * cursor and erase sequences progress bars use) and returns every line it left, scrollback
 * included. What a person sees at the end, so a line overdrawn or cut by a redraw shows as such.
 */

/** The lines left on a `columns`-wide terminal after `output` was written to it (trailing blanks trimmed). */
export function replayTerminal(output: string, columns = 200): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => {
    while (lines.length <= row) lines.push([]);
    return lines[row]!;
  };
  let i = 0;
  while (i < output.length) {
    const ch = output[i]!;
    if (ch === "\x1b") {
      // ESC [ (?) params letter: after the escape character itself.
      const csi = /^\[([?]?)([0-9;]*)([A-Za-z])/.exec(output.slice(i + 1, i + 32));
      if (csi === null) {
        i += 1;
        continue;
      }
      i += 1 + csi[0].length;
      if (csi[1] === "?") continue; // cursor visibility, line wrapping
      const n = Number(csi[2]?.split(";")[0] || "0");
      switch (csi[3]) {
        case "A":
          row = Math.max(0, row - Math.max(1, n));
          break;
        case "B":
          row += Math.max(1, n);
          break;
        case "G":
          col = Math.max(0, n - 1);
          break;
        case "K":
          if (n === 0) line().splice(col);
          else if (n === 1) line().fill(" ", 0, col);
          else line().splice(0);
          break;
        case "J":
          line().splice(col);
          lines.splice(row + 1);
          break;
        default:
          break; // colours (m) and anything else leave the text as it is
      }
      continue;
    }
    i += 1;
    if (ch === "\r") col = 0;
    else if (ch === "\n") row += 1;
    else if (ch === "\b") col = Math.max(0, col - 1);
    else {
      if (col >= columns) {
        row += 1;
        col = 0;
      }
      const current = line();
      while (current.length < col) current.push(" ");
      current[col] = ch;
      col += 1;
    }
  }
  return lines.map((l) => l.join("").trimEnd());
}

/** Runs `command` (a shell line) on a pseudo-terminal of `columns` columns with `script`; resolves to what it wrote. */
export async function onTerminal(
  command: string,
  options: { env: Record<string, string>; cwd?: string; columns?: number; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const { spawn } = await import("node:child_process");
  const columns = options.columns ?? 200;
  const child = spawn("script", ["-qec", `stty cols ${columns} rows 50; ${command}`, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${command} did not finish within ${options.timeoutMs ?? 120_000} ms: ${output.slice(-2000)}`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
