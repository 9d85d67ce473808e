import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { UsageError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { type DbtResult, dbtWorkFolder, runDbt } from "./run-dbt.js";

/**
 * dbt's documentation site of the project (models, columns, tests, lineage from the landing
 * tables to the marts): `dbt docs generate` into a folder of its own per warehouse, served by a
 * small read-only static server.
 */

/** The files `dbt docs generate` writes that the site needs. */
export const DOCS_FILES = ["index.html", "manifest.json", "catalog.json", "static_index.html"] as const;

/**
 * The docs site's folder for a warehouse: `dbt-docs/<database>@<host>-<port>/target` in the state folder (a clone's `.telecom-etl/`),
 * apart from the folder `transform` and `nightly` build in, so a build never rewrites a site being
 * served.
 */
export function docsFolder(databaseUrl: string): { readonly workDir: string; readonly site: string } {
  const workDir = dbtWorkFolder(databaseUrl, "dbt-docs");
  return { workDir, site: path.join(workDir, "target") };
}

/**
 * `dbt docs generate --static` against the warehouse (the catalog reads the built tables' columns
 * and comments): writes index.html, manifest.json, catalog.json, and static_index.html (one file
 * with everything in it, for opening without a server). Returns the site's folder and dbt's result
 * (see `describeDbtFailure` when it failed).
 */
export async function generateDbtDocs(options: {
  readonly databaseUrl: string;
  readonly log: Logger;
  readonly signal?: AbortSignal;
  readonly biReaderRole?: string;
}): Promise<{ readonly site: string; readonly result: DbtResult }> {
  const { workDir, site } = docsFolder(options.databaseUrl);
  const result = await runDbt({
    databaseUrl: options.databaseUrl,
    log: options.log,
    args: ["docs", "generate", "--static"],
    workDir,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.biReaderRole === undefined ? {} : { biReaderRole: options.biReaderRole }),
  });
  return { site, result };
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
};

/**
 * Serves the site's files (only those of {@link DOCS_FILES}, nothing else of the folder) on
 * `host:port`; `/` is index.html. Resolves once listening; port 0 picks a free one.
 */
export async function serveDbtDocs(
  site: string,
  options: { readonly host: string; readonly port: number },
): Promise<{ readonly server: Server; readonly url: string }> {
  const allowed = new Set<string>(DOCS_FILES);
  const server = createServer((request, response) => {
    const name = new URL(request.url ?? "/", "http://docs").pathname.replace(/^\/+/, "") || "index.html";
    if ((request.method !== "GET" && request.method !== "HEAD") || !allowed.has(name)) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const file = path.join(site, name);
    stat(file).then(
      (info) => {
        response.writeHead(200, {
          "content-type": CONTENT_TYPES[path.extname(name)] ?? "application/octet-stream",
          "content-length": info.size,
          "cache-control": "no-cache",
        });
        if (request.method === "HEAD") response.end();
        else createReadStream(file).pipe(response);
      },
      () => response.writeHead(404, { "content-type": "text/plain" }).end("not generated\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL"
          ? new UsageError(
              `docs: cannot serve on ${options.host}:${options.port} (${error.code}); pick another --port or --host`,
            )
          : error,
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return { server, url: `http://${shownHost}:${port}/` };
}
