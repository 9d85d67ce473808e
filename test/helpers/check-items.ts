/** The lines of a `telecom-etl check` output, keyed `subject: item` (the verdict line left out). */
export function checkItemsOf(stdout: string): Map<string, { status: string; detail: string }> {
  const items = new Map<string, { status: string; detail: string }>();
  for (const line of stdout.trim().split("\n")) {
    const match =
      /^(ok|warn|fail|unknown) +(account \S+|warehouse|dbt|config|environment): ([^:]+): (.*)$/.exec(line);
    if (match) items.set(`${match[2]}: ${match[3]}`, { status: match[1]!, detail: match[4]! });
  }
  return items;
}
