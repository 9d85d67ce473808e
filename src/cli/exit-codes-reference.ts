import { EXIT, EXIT_SEVERITY } from "../core/exit-codes.js";

/** The JSDoc of each member of `EXIT` in the source of src/core/exit-codes.ts, by member name. */
function memberDocs(source: string): Map<string, string> {
  const body = source.slice(source.indexOf("export const EXIT = {"));
  const docs = new Map<string, string>();
  for (const match of body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+): \d+,/g)) {
    const text = (match[1] ?? "")
      .split("\n")
      .map((line) => line.replace(/^\s*\*\s?/, "").trim())
      .join(" ")
      .trim();
    docs.set(match[2] ?? "", text);
  }
  return docs;
}

/**
 * The table of every exit code with its name and summary, from `EXIT` and its JSDoc (the text of
 * src/core/exit-codes.ts, `source`), then the order `nightly` ranks them in.
 */
export function exitCodesReference(source: string): string {
  const docs = memberDocs(source);
  const nameOf = (code: number) => Object.entries(EXIT).find(([, value]) => value === code)?.[0] ?? "";
  return [
    "| code | name in the code | summary |",
    "|---|---|---|",
    ...Object.entries(EXIT).map(([name, code]) => {
      const doc = docs.get(name);
      if (doc === undefined) throw new Error(`src/core/exit-codes.ts: EXIT.${name} has no JSDoc; write one`);
      return `| ${code} | \`${name}\` | ${doc} |`;
    }),
    "",
    `From mildest to worst (\`EXIT_SEVERITY\`): ${EXIT_SEVERITY.map((code) => `${code} (\`${nameOf(code)}\`)`).join(", ")}.`,
  ].join("\n");
}
