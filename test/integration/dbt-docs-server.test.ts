import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { serveDbtDocs } from "../../src/transform/dbt-docs.js";

/**
 * The server of `telecom-etl docs` over real HTTP: `/` is dbt's index.html, the site's JSON files
 * are served, and nothing else of the folder (no other file, no path outside it); a port in use is
 * one line naming it, not a stack trace.
 */
describe("dbt docs server", () => {
  it("serves the site's files only, and refuses a port in use with a usage error", async () => {
    const site = await mkdtemp(path.join(tmpdir(), "dbt-docs-"));
    await writeFile(path.join(site, "index.html"), "<html>docs</html>");
    await writeFile(path.join(site, "catalog.json"), '{"nodes":{}}');
    await writeFile(path.join(site, "profiles.yml"), "password: secret");
    const served = await serveDbtDocs(site, { host: "127.0.0.1", port: 0 });
    try {
      const index = await fetch(served.url);
      expect(index.status).toBe(200);
      expect(index.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await index.text()).toBe("<html>docs</html>");
      const catalog = await fetch(new URL("catalog.json", served.url));
      expect(await catalog.json()).toEqual({ nodes: {} });
      for (const other of ["profiles.yml", "manifest.json", "%2e%2e/%2e%2e/etc/passwd"])
        expect((await fetch(new URL(other, served.url))).status, other).toBe(404);

      const port = Number(new URL(served.url).port);
      const busy = serveDbtDocs(site, { host: "127.0.0.1", port });
      await expect(busy).rejects.toThrow(UsageError);
      await expect(busy).rejects.toThrow(
        `docs: cannot serve on 127.0.0.1:${port} (EADDRINUSE); pick another --port or --host`,
      );
    } finally {
      served.server.close();
      served.server.closeAllConnections();
      await rm(site, { recursive: true, force: true });
    }
  });
});
