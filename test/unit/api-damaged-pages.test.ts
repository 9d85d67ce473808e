import { describe, expect, it } from "vitest";
import { damagedPages } from "../../src/api/damaged-pages.js";

/** Rows are their own keys: page p of a list of `total` rows, `perPage` a page, holds p*perPage-perPage+1 .. */
function pageOf(page: number, perPage: number, total: number): number[] {
  const first = (page - 1) * perPage + 1;
  return Array.from({ length: Math.max(0, Math.min(perPage, total - first + 1)) }, (_, i) => first + i);
}

const shape = { total: 23, perPage: 10 };
const identity = (row: unknown) => String(row);
const intact = () => new Map([1, 2, 3].map((p) => [p, pageOf(p, 10, 23)] as const));

describe("damagedPages", () => {
  it("finds nothing in an intact list", () => {
    expect(damagedPages(intact(), shape, identity)).toEqual([]);
  });

  it("finds a page short of rows, the last page included", () => {
    const pages = intact();
    pages.set(2, pageOf(2, 10, 23).slice(0, 8));
    pages.set(3, [21, 22]);
    expect(damagedPages(pages, shape, identity)).toEqual([2, 3]);
  });

  it("finds a shifted page (it repeats the previous page's last row and skips one), not the page it repeats", () => {
    const pages = intact();
    pages.set(2, [10, ...pageOf(2, 10, 23).slice(0, 9)]);
    expect(damagedPages(pages, shape, identity)).toEqual([2]);
  });

  it("says nothing of pages never read", () => {
    const pages = intact();
    pages.delete(3);
    expect(damagedPages(pages, shape, identity)).toEqual([]);
  });
});
