import { describe, expect, it } from "vitest";
import { KeyFilter } from "../../src/warehouse/key-filter.js";

describe("KeyFilter", () => {
  it("never misses a key it was given, across its growing layers, and rarely claims one it was not", () => {
    const filter = new KeyFilter();
    const added = 300_000;
    for (let i = 0; i < added; i++) filter.add(`placed\u0000call-${i}`);
    let missed = 0;
    for (let i = 0; i < added; i++) if (!filter.mayHave(`placed\u0000call-${i}`)) missed++;
    expect(missed).toBe(0);
    let claimed = 0;
    const unseen = 100_000;
    for (let i = 0; i < unseen; i++) if (filter.mayHave(`received\u0000call-${i}`)) claimed++;
    expect(claimed / unseen).toBeLessThan(0.005);
  });
});
