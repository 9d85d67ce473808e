/**
 * Which marts dbt builds incrementally, read from the manifest of the invocation that built them:
 * the publication keeps the published table of such a mart, when a build replaces it, as the next
 * build's starting point (see `publish-marts.ts`).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

interface ManifestNode {
  readonly resource_type?: string;
  readonly alias?: string;
  readonly schema?: string;
  readonly config?: { readonly materialized?: string };
}

/**
 * The relation names (aliases) of the incremental models dbt built in `schema`, from
 * `<targetPath>/manifest.json`; empty when the manifest cannot be read (nothing is kept then, the
 * next build copies: slower, never wrong).
 */
export async function incrementalMartsIn(targetPath: string, schema: string): Promise<ReadonlySet<string>> {
  let nodes: Record<string, ManifestNode>;
  try {
    const manifest = JSON.parse(await readFile(path.join(targetPath, "manifest.json"), "utf8")) as {
      nodes?: Record<string, ManifestNode>;
    };
    nodes = manifest.nodes ?? {};
  } catch {
    return new Set();
  }
  const names = new Set<string>();
  for (const node of Object.values(nodes)) {
    if (
      node.resource_type === "model" &&
      node.schema === schema &&
      node.config?.materialized === "incremental" &&
      node.alias
    ) {
      names.add(node.alias);
    }
  }
  return names;
}
