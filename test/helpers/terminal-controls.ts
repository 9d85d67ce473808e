/**
 * The characters of `text` a terminal acts on instead of showing, as code points: C0 controls
 * (tab and newline aside), DEL, C1 controls, bidirectional overrides and isolates. Written apart
 * from src/core/terminal-text.ts, so a test does not check the code with its own pattern.
 */
export function terminalControls(text: string): number[] {
  const codes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const c0 = code < 0x20 && code !== 0x09 && code !== 0x0a;
    const c1 = code >= 0x7f && code <= 0x9f;
    const bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if (c0 || c1 || bidi) codes.push(code);
  }
  return codes;
}
