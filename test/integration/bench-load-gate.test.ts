import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/** The built gate (`npm run build`; the suite's global setup rebuilds a stale dist/). */
const GATE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/bench/load-gate.js");

/** Runs the built gate with `args` and returns its exit code and output. */
function runGate(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GATE, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

it("fails a run beyond its thresholds with exit 1, the figures and a line naming the figure", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "load-gate-test-"));
  try {
    // No loader reaches 1000 times a plain COPY's rate: this threshold fails every run.
    const thresholds = path.join(dir, "impossible.json");
    await writeFile(
      thresholds,
      JSON.stringify({ min_e2e_to_copy_ratio: 1000, max_requests_per_row_over_floor: 1.5 }),
    );
    const gate = await runGate([
      ...["--days", "1", "--calls-per-day", "3000", "--rounds", "1"],
      ...["--thresholds", thresholds],
    ]);
    expect(gate.stdout).toMatch(/^round 1: e2e backfill [\d,]+ rows\/s .* plain COPY [\d,]+ rows\/s/m);
    expect(gate.stdout).toMatch(/^e2e \/ plain COPY: +0\.\d{3} .*threshold >= 1000\)$/m);
    expect(gate.stdout).toMatch(/^requests \/ floor: +1\.\d{3} \(threshold <= 1\.5\)$/m);
    // Measured again once on fresh rounds, and failed again: one line per measurement.
    expect(gate.stdout).toMatch(
      /^load gate: a figure is beyond its threshold; measuring again once on fresh rounds$/m,
    );
    const failed = new RegExp(
      `^load gate FAILED: e2e/COPY ratio 0\\.\\d{3} is below min_e2e_to_copy_ratio 1000 \\(thresholds: ${thresholds}\\)$`,
    );
    const lines = gate.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(failed);
    expect(gate.code).toBe(1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
