import { describe, expect, it } from "vitest";
import { KeyFilter, KeyHash } from "../../src/warehouse/load/key-filter.js";

const hash = new KeyHash();
const key = (...parts: string[]) => {
  hash.reset();
  for (const part of parts) hash.feed(part);
  return hash;
};

describe("KeyFilter", () => {
  it("never misses a key it was given, across its growing layers, and rarely claims one it was not", () => {
    const filter = new KeyFilter();
    const added = 300_000;
    let claimedWhileAdding = 0;
    for (let i = 0; i < added; i++) if (filter.add(key("placed", `call-${i}`))) claimedWhileAdding++;
    expect(claimedWhileAdding / added).toBeLessThan(0.005);
    let missed = 0;
    for (let i = 0; i < added; i++) if (!filter.add(key("placed", `call-${i}`))) missed++;
    expect(missed).toBe(0);
  });

  it("tells a key's parts apart: ('ab', 'c') is not ('a', 'bc')", () => {
    const joined = key("ab", "c");
    const [first, second] = [joined.first, joined.second];
    const split = key("a", "bc");
    expect([split.first, split.second]).not.toEqual([first, second]);
  });
});
