import { BoundedDayCache } from "@telecom-etl/sandbox/bounded-day-cache.js";
import { describe, expect, it } from "vitest";

describe("the sandbox's bounded day cache", () => {
  it("keeps the most recently used days within the row bound, never evicting the day just added", () => {
    const evicted: string[] = [];
    const cache = new BoundedDayCache<string[]>(
      5,
      (rows) => rows.length,
      (rows) => evicted.push(rows[0]!),
    );
    cache.set("a", ["a1", "a2"]);
    cache.set("b", ["b1", "b2"]);
    expect(cache.get("a")).toEqual(["a1", "a2"]); // a is now the most recently used
    cache.set("c", ["c1", "c2"]); // 6 rows > 5: the least recently used (b) goes
    expect(evicted).toEqual(["b1"]);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.rows).toBe(4);
    cache.set("d", ["d1", "d2", "d3", "d4", "d5", "d6"]); // over the bound alone: kept, the others go
    expect(evicted).toEqual(["b1", "a1", "c1"]);
    expect(cache.get("d")).toHaveLength(6);
    cache.delete("d");
    cache.delete("nothing");
    expect(cache.rows).toBe(0);
    cache.set("e", ["e1"]);
    cache.clear();
    expect(cache.rows).toBe(0);
    expect(evicted).toEqual(["b1", "a1", "c1", "d1", "e1"]);
  });
});
