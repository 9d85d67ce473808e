import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The page with the analysts' example queries (the README's until issue 36 item 5). */
const README = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../docs/reference/data-model-for-bi.md",
);

/**
 * The SQL blocks of docs/reference/data-model-for-bi.md's "The ten questions an analyst asks first" section, in order, so a
 * test can run each against built marts: a renamed column breaks the test, not the reader.
 */
export function readmeExampleQueries(): string[] {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("## The ten questions an analyst asks first");
  if (start < 0)
    throw new Error(
      "docs/reference/data-model-for-bi.md has no section 'The ten questions an analyst asks first'",
    );
  const rest = text.slice(start + 1);
  const next = rest.search(/\n#{1,2} /);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^ {3,4}/gm, "").trim());
}
