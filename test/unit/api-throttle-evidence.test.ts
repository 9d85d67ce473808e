import { describe, expect, it } from "vitest";
import { ThrottleEvidence } from "../../src/api/throttle-evidence.js";

function recordMany(evidence: ThrottleEvidence, outcomes: string, calm = false): void {
  for (const outcome of outcomes) evidence.record(outcome === ".", calm);
}

describe("ThrottleEvidence", () => {
  it("has no calm calls before a limit is found", () => {
    expect(new ThrottleEvidence().isCalm(1_000_000, 0.1)).toBe(false);
  });

  it("counts calls as calm a second after a limit was found, at no more than the calm rate", () => {
    const evidence = new ThrottleEvidence();
    evidence.limitFound(9.5, 10_000);
    expect(evidence.isCalm(10_999, 9)).toBe(false);
    expect(evidence.isCalm(11_000, 9.5)).toBe(true);
    expect(evidence.isCalm(11_000, 9.6)).toBe(false);
  });

  it("takes 429s for a limit until a calm call was refused", () => {
    const evidence = new ThrottleEvidence();
    recordMany(evidence, `${".".repeat(49)}x`);
    expect(evidence.looksRandom()).toBe(false);
    evidence.record(false, true);
    expect(evidence.looksRandom()).toBe(true);
  });

  it("takes 429s for a limit when more than 10% of the latest outcomes (20 at least) are 429s", () => {
    const evidence = new ThrottleEvidence();
    evidence.record(false, true);
    recordMany(evidence, "xxxxx");
    // Only 6 outcomes: too few to trust their share.
    expect(evidence.manyRefused()).toBe(false);
    expect(evidence.looksRandom()).toBe(true);
    recordMany(evidence, ".".repeat(14));
    expect(evidence.manyRefused()).toBe(true);
    expect(evidence.looksRandom()).toBe(false);
    // 6 of 60 is exactly 10%: not over.
    recordMany(evidence, ".".repeat(40));
    expect(evidence.manyRefused()).toBe(false);
    expect(evidence.looksRandom()).toBe(true);
  });

  it("keeps only the latest 100 outcomes, and forgets calm refusals on request", () => {
    const evidence = new ThrottleEvidence();
    evidence.record(false, true);
    recordMany(evidence, "x".repeat(20));
    expect(evidence.manyRefused()).toBe(true);
    recordMany(evidence, ".".repeat(100));
    expect(evidence.manyRefused()).toBe(false);
    expect(evidence.looksRandom()).toBe(true);
    evidence.forgetCalm();
    expect(evidence.looksRandom()).toBe(false);
  });
});
