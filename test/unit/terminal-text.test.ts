import { describe, expect, it } from "vitest";
import { printable } from "../../src/core/terminal-text.js";

const ESC = "\u001b";
const BEL = "\u0007";

describe("printable", () => {
  it("removes escape sequences whole: colours, screen clearing, titles, OSC 8 links", () => {
    expect(printable(`${ESC}[31mred${ESC}[0m and ${ESC}[2J${ESC}[Hcleared`)).toBe("red and cleared");
    expect(printable(`see ${ESC}]8;;http://evil.example${BEL}the docs${ESC}]8;;${BEL} now`)).toBe(
      "see the docs now",
    );
    expect(printable(`${ESC}]8;;http://evil.example${ESC}\\link${ESC}]8;;${ESC}\\`)).toBe("link");
    expect(printable(`${ESC}]0;pwned title${BEL}text`)).toBe("text");
    expect(printable(`${ESC}P+q${ESC}\\dcs gone`)).toBe("dcs gone");
    expect(printable("8-bit \u009b31mcsi\u009b0m and \u009d8;;http://x\u009clink")).toBe(
      "8-bit csi and link",
    );
  });

  it("removes bells, carriage returns, backspaces, other controls and bidi overrides; keeps tabs, newlines and text", () => {
    expect(printable(`ok${BEL}\rFAILED\b\u007f \u202eevil\u202c`)).toBe("okFAILED evil");
    expect(printable("a\tb\nc — café 日本 ✓")).toBe("a\tb\nc — café 日本 ✓");
    expect(printable(`dangling ${ESC}`)).toBe("dangling ");
  });

  it("returns a clean string as it is", () => {
    const text = "run 42 (succeeded, exit 0)";
    expect(printable(text)).toBe(text);
  });
});
