import type { Command } from "commander";

/** The width help is wrapped at in the reference, whatever the terminal that ran `make docs`. */
const HELP_WIDTH = 100;

/** Every command below `command`, groups included, with its words (`rejects list`). */
export function commandsOf(command: Command, prefix: readonly string[] = []): [string, Command][] {
  return command.commands.flatMap((sub) => {
    const words = [...prefix, sub.name()];
    return [[words.join(" "), sub] as [string, Command], ...commandsOf(sub, words)];
  });
}

/** What `--help` prints for `command` (the texts added after it included), at {@link HELP_WIDTH}, no colour. */
export function helpOf(command: Command): string {
  let text = "";
  command.configureOutput({
    writeOut: (chunk) => {
      text += chunk;
    },
    getOutHelpWidth: () => HELP_WIDTH,
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text.trimEnd();
}

/** The program's `--help` and every command's, each under a heading of its words, as Markdown. */
export function commandsReference(program: Command): string {
  const section = (title: string, command: Command) =>
    `## ${title}\n\n\`\`\`text\n${helpOf(command)}\n\`\`\``;
  return [
    section(program.name(), program),
    ...commandsOf(program).map(([words, command]) => section(`${program.name()} ${words}`, command)),
  ].join("\n\n");
}
