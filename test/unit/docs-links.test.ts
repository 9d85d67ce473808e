/**
 * Issue 36 item 5: every relative link of README.md and docs/ leads somewhere. A link's file (or
 * folder) exists, and its `#anchor` is a heading of the page it names, slugged as GitHub slugs
 * headings. No network: links to other sites are not followed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(new URL("../../", import.meta.url).pathname);

/** The Markdown pages the link check reads: README.md and every page under docs/. */
function pages(root: string): string[] {
  const docs = readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" });
  return ["README.md", ...docs.filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)].sort();
}

/** `text` without its fenced code blocks and inline code, where a bracket is not a link. */
function prose(text: string): string {
  return text.replace(/^ *```[\s\S]*?^ *```/gm, "").replace(/`[^`\n]*`/g, "code");
}

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.replace(/^ *```[\s\S]*?^ *```/gm, "").matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** One line per link of `files` (relative to `root`) that leads nowhere. */
function brokenLinks(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    for (const [, target] of prose(text).matchAll(/\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
      const [where = "", anchor] = target!.split("#");
      const resolved =
        where === "" ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), where);
      if (!existsSync(resolved)) {
        problems.push(`${file}: link to ${target}: ${path.relative(root, resolved)} does not exist`);
      } else if (anchor !== undefined && resolved.endsWith(".md")) {
        if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor))
          problems.push(
            `${file}: link to ${target}: ${path.relative(root, resolved)} has no heading #${anchor}`,
          );
      }
    }
  }
  return problems;
}

describe("the docs' links", () => {
  it("finds the pages, README.md and docs/ with its sub-folders", () => {
    const files = pages(ROOT);
    expect(files).toContain("README.md");
    expect(files).toContain("docs/README.md");
    expect(files).toContain("docs/decisions/0001-a-launcher-at-the-clone-s-root-and-recipes-tested.md");
  });

  it("every relative link and anchor of README.md and docs/ resolves", () => {
    expect(brokenLinks(ROOT, pages(ROOT))).toEqual([]);
  });

  it("reads anchors as GitHub slugs them", () => {
    const anchors = anchorsOf(
      "# Control schema `etl`\n## The ten questions: Q&A\n## Keys\n## Keys\n```\n# not a heading\n```\n",
    );
    expect([...anchors]).toEqual(["control-schema-etl", "the-ten-questions-qa", "keys", "keys-1"]);
  });

  it("tells a missing file and a missing anchor, and ignores links in code and to other sites", () => {
    const root = mkdtempSync(path.join(tmpdir(), "docs-links-"));
    writeFileSync(path.join(root, "b.md"), "# Real heading\n");
    writeFileSync(
      path.join(root, "a.md"),
      "[ok](b.md#real-heading) [self](#top) [gone](c.md) [bad](b.md#nowhere) [web](https://example.com/x)\n`[code](d.md)`\n```\n[fenced](e.md)\n```\n# Top\n",
    );
    expect(brokenLinks(root, ["a.md"])).toEqual([
      "a.md: link to c.md: c.md does not exist",
      "a.md: link to b.md#nowhere: b.md has no heading #nowhere",
    ]);
  });
});

describe("the README and the decision records", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("keeps the README a front page: at most 250 lines, ending with a Documentation section that links docs/README.md", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(250);
    const last = readme.slice(readme.lastIndexOf("\n## "));
    expect(last.startsWith("\n## Documentation\n")).toBe(true);
    expect(last).toContain("](docs/README.md)");
  });

  it("lists every numbered record in docs/decisions/README.md, each titled with its own number", () => {
    const records = readdirSync(path.join(ROOT, "docs/decisions"))
      .filter((f) => /^\d{4}-.+\.md$/.test(f))
      .sort();
    expect(records.length).toBeGreaterThan(90);
    const index = readFileSync(path.join(ROOT, "docs/decisions/README.md"), "utf8");
    const listed = [...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]);
    expect(listed).toEqual(records);
    for (const [n, record] of records.entries()) {
      const number = record.slice(0, 4);
      expect(Number(number), `${record} is numbered in order`).toBe(n + 1);
      const title = readFileSync(path.join(ROOT, "docs/decisions", record), "utf8").split("\n")[0];
      expect(title, record).toMatch(new RegExp(`^# ${number}\\. \\S`));
    }
  });
});
