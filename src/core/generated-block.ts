/**
 * A block of a Markdown page that `make docs` writes from the code, between two marker lines
 * (`<!-- name: generated from … -->` and `<!-- /name -->`), so the prose around it stays by hand
 * and a test can tell when the block is stale. The one reader and writer of such blocks: the
 * stream table (src/streams/stream-table.ts) and the reference's (src/cli/reference-blocks.ts).
 */

/** The marker lines of the generated block `name`, naming its source. */
export function blockMarkers(name: string, source: string): { begin: string; end: string } {
  return {
    begin: `<!-- ${name}: generated from ${source} by \`make docs\`; edit the code, not this block -->`,
    end: `<!-- /${name} -->`,
  };
}

/** Where the block sits in `lines`: the indexes of its two marker lines. */
function blockLines(lines: readonly string[], name: string, file: string): { begin: number; end: number } {
  const begin = lines.findIndex((line) => line.startsWith(`<!-- ${name}: generated from `));
  const end = lines.indexOf(`<!-- /${name} -->`);
  if (begin === -1 || end < begin)
    throw new Error(
      `${file} has no generated block "${name}": put its two marker lines back, then run make docs`,
    );
  return { begin, end };
}

/** The block `name` as `text` holds it, markers included. */
export function generatedBlockIn(text: string, name: string, file: string): string {
  const lines = text.split("\n");
  const { begin, end } = blockLines(lines, name, file);
  return lines.slice(begin, end + 1).join("\n");
}

/** `text` with the block `name` replaced by `block` (markers included); the rest unchanged. */
export function withGeneratedBlock(text: string, name: string, file: string, block: string): string {
  const lines = text.split("\n");
  const { begin, end } = blockLines(lines, name, file);
  return [...lines.slice(0, begin), block, ...lines.slice(end + 1)].join("\n");
}

/** What lies between the block's marker lines in `text`. */
export function blockBodyIn(text: string, name: string, file: string): string {
  const block = generatedBlockIn(text, name, file).split("\n");
  return block.slice(1, -1).join("\n");
}

/** `text` with what lies between the block's marker lines replaced by `body`; the markers kept. */
export function withBlockBody(text: string, name: string, file: string, body: string): string {
  const block = generatedBlockIn(text, name, file).split("\n");
  return withGeneratedBlock(text, name, file, [block[0], body, block.at(-1)].join("\n"));
}

/** The block `name` with its markers around `body`. */
export function generatedBlock(name: string, source: string, body: string): string {
  const { begin, end } = blockMarkers(name, source);
  return [begin, "", body, "", end].join("\n");
}
