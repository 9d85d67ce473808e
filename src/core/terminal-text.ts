/**
 * Text made safe to print on a terminal. What the platform sends (an error message, a field name,
 * a name) reaches the run summary, `status`, `schema`, `runs show`, `rejects list` and the log; an
 * escape sequence in it could clear the screen, recolour or rewrite lines, hide a link behind other
 * text (OSC 8) or ring the bell, and a carriage return could overwrite what came before it. Every
 * line the CLI prints goes through {@link printable} at the point it is written.
 */

/* biome-ignore-start lint/suspicious/noControlCharactersInRegex: these patterns exist to find control characters */

/**
 * An escape sequence, removed whole so its parameters do not stay behind as text: CSI
 * (`ESC [ … final`, colours and cursor moves), OSC (`ESC ] … BEL` or `ESC ] … ESC \`: titles and
 * OSC 8 hyperlinks), DCS/SOS/PM/APC strings (`ESC P|X|^|_ … ESC \`), any other `ESC` sequence, and
 * the 8-bit CSI and OSC introducers (U+009B, U+009D).
 */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[PX^_][^\u001b]*(?:\u001b\\)?|[ -/]*[0-~])|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u009c]*[\u0007\u009c]?/g;

/**
 * A character a terminal acts on instead of showing: C0 controls but tab and newline, DEL, C1
 * controls, and the bidirectional overrides and isolates that reorder what is shown.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, "g");

/* biome-ignore-end lint/suspicious/noControlCharactersInRegex: see above */

/**
 * `text` without escape sequences and control characters (tab and newline are kept: they lay out
 * what the CLI prints); the same string when it holds none, which is nearly always.
 */
export function printable(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, "").replace(CONTROLS, "");
}
