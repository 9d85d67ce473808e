/**
 * One line for a YAML syntax error: the line number, the offending line itself and the parser's
 * reason, so an operator sees what to fix without opening the file at the right place.
 */

/** The shape of the `yaml` package's parse errors (YAMLParseError) this module reads. */
interface PositionedError {
  readonly message: string;
  readonly linePos?: readonly { readonly line: number; readonly col: number }[];
}

/**
 * `line 4 is not valid YAML: "   api_key_env: K" (Sequence item without - indicator)` for a
 * parse error of `text`; the error's first line when it carries no position.
 */
export function yamlErrorLine(error: unknown, text: string): string {
  const parsed = error as PositionedError;
  const message = typeof parsed?.message === "string" ? parsed.message : String(error);
  const reason = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const line = parsed?.linePos?.[0]?.line;
  if (line === undefined) return `is not valid YAML: ${reason}`;
  const lines = text.split(/\r?\n/);
  const shown = lines[line - 1] ?? "";
  const where =
    shown.trim() === "" && line >= lines.length ? `line ${line} (the end of the file)` : `line ${line}`;
  return `${where} is not valid YAML: ${JSON.stringify(shown)} (${reason})`;
}
