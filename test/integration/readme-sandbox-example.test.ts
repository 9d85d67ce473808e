/**
 * Issue 36 item 6: the sandbox example works as written. Its two commands are read from
 * the "The sandbox" section of the tutorial, docs/tutorial/first-night.md (the README's until issue 36 item 5); the first (the sandbox) gets a free port and a smaller
 * world appended (later flags win), the second (the run) runs as written, with the URL and key
 * the sandbox printed, and must load the sandbox's days: no TELECOM_ETL_NOW, no clock flag.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { collect, runCli, spawnCli, waitForOutput } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/** The shell lines of the code block of the tutorial's "## The sandbox" section. */
async function readmeSandboxExample(): Promise<string[]> {
  const readme = await readFile(new URL("../../docs/tutorial/first-night.md", import.meta.url), "utf8");
  const section = readme.split("\n## The sandbox\n")[1]!.split("\n## ")[0]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.trim().split("\n");
}

/**
 * `A=1 B=2 ./telecom-etl cmd --x y` as its environment and its CLI arguments. The tutorial runs the
 * clone's launcher; here the same arguments go to the built CLI it hands over to (the launcher's
 * own choice of Node is launcher.test.ts's).
 */
function commandOf(line: string): { env: Record<string, string>; args: string[] } {
  const words = line.split(/ +/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=");
    env[name!] = value.join("=");
  }
  expect(words[0]).toBe("./telecom-etl");
  return { env, args: words.slice(1) };
}

describe("the tutorial's sandbox example", () => {
  it("runs as written: the run loads the sandbox's last days and finishes (exit 0, or 3 for rows quarantined)", async ({
    createDatabase,
  }) => {
    const [sandboxLine, runLine] = await readmeSandboxExample();
    const sandboxCommand = commandOf(sandboxLine!);
    const small = ["--port", "0", "--days", "3", "--accounts", "1", "--calls-per-day", "20"];
    const child = spawnCli([...sandboxCommand.args, ...small]);
    const done = collect(child, 300_000);
    try {
      const banner = await waitForOutput(child, (out) => out.includes("admin: "));
      const url = /sandbox listening on (http:\/\/\S+)/.exec(banner)![1]!;
      const key = /key ([0-9a-f]{32})/.exec(banner)![1]!;
      const run = commandOf(runLine!.replace("http://127.0.0.1:4010", url).replace("<printed key>", key));
      expect(Object.keys(run.env).sort()).toEqual(["TELECOM_API_KEY", "TELECOM_API_URL"]);
      const db = await createDatabase();
      const cwd = await mkdtemp(path.join(tmpdir(), "readme-sandbox-"));
      const result = await runCli(run.args, {
        env: { ...run.env, DATABASE_URL: db.url },
        cwd,
        timeoutMs: 300_000,
      });
      // 0, or 3 when the flaky profile's corrupted rows were quarantined (docs/reference/exit-codes.md).
      expect([0, 3], result.stdout.slice(-2000) + result.stderr.slice(-2000)).toContain(result.code);
      // The sandbox's world ends today (UTC): yesterday's calls are in the warehouse, none invented.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const account = /^ {2}(\S+)\s+id/m.exec(banner)![1]!;
      const truth = await fetch(
        `${url}/_sandbox/truth/cdrs?account=${account}&from=${yesterday}&to=${yesterday}`,
      );
      const truthRows = (await truth.text()).split("\n").filter((l) => l.trim() !== "").length;
      expect(truthRows).toBeGreaterThan(0);
      const loaded = await db.warehouse.db
        .selectFrom("etl.run_slices")
        .select(["rows_inserted"])
        .where("stream", "=", "cdrs")
        .where("window_start", "=", yesterday)
        .executeTakeFirst();
      expect(loaded?.rows_inserted ?? 0).toBeGreaterThan(0);
      expect(loaded?.rows_inserted ?? 0).toBeLessThanOrEqual(truthRows);
    } finally {
      child.kill("SIGINT");
      await done;
    }
  });
});
