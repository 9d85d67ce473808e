import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { embeddedWarehouseLine } from "../../src/cli/demo-command.js";
import { buildProgram } from "../../src/cli/main.js";
import { ownCommand } from "../../src/cli/own-command.js";
import { inertRuntime } from "../helpers/inert-runtime.js";

/**
 * Every recipe's command exists (issue 36 item 2): the code blocks (sh, cron, systemd) of the README and docs/
 * and inline commands, scripts/nightly.sh, the systemd units, the Kubernetes and compose files,
 * the Dockerfile and the demo's last line. A command's program must be the clone's launcher (in a
 * clone) or `telecom-etl` on the image's PATH (in the image), a `make` target, an `npm run`
 * script, a file of the clone, or a known system tool; its telecom-etl words a known subcommand
 * and its flags that subcommand's.
 */

const program = buildProgram(inertRuntime);
const read = (file: string) => readFileSync(file, "utf8");

/** Where a recipe runs: in a clone (as installed at /opt/telecom-etl), or inside the Docker image. */
type Where = "clone" | "image";
/** The folder the cron and systemd recipes (docs/how-to/deploy-cron-systemd.md) install the clone in. */
const INSTALLED_CLONE = "/opt/telecom-etl/";
/** Tools of the machine a recipe may call (not the project's to check). */
const SYSTEM_TOOLS = new Set([
  "cd",
  "cp",
  "install",
  "export",
  "eval",
  "mkdir",
  "ln",
  "[",
  "set",
  "exit",
  "fi",
  "done",
  "psql",
  "kubectl",
]);
/** Global options of the CLI that take a value. */
const GLOBAL_WITH_VALUE = new Set(["--config", "--database-url", "--log-level", "--log-format"]);

/** A shell line as words and operators (`&&`, `;`, `|`, …); quotes kept whole, `<placeholder>` one word, comments dropped. */
function shellWords(line: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(?:(#.*$)|(&&|\|\||[;|])|((?:<[^<>]*>|"(?:\\.|[^"\\])*"|'[^']*'|\\.|[^\s;|&'"])+))/gy;
  for (let m = re.exec(line); m !== null && m[0] !== ""; m = re.exec(line)) {
    if (m[1] !== undefined) break;
    tokens.push(m[2] ?? m[3]!.replace(/^'(.*)'$|^"(.*)"$/, "$1$2"));
  }
  return tokens;
}

/** The simple commands of a shell line: split at operators, without redirections, env assignments or `exec`. */
function commandsOfLine(line: string): string[][] {
  const commands: string[][] = [[]];
  const words = shellWords(line);
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    if (["&&", "||", ";", "|"].includes(word)) commands.push([]);
    else if (/^\d*>>?$/.test(word)) i += 1;
    else if (!/^\d*>/.test(word)) commands.at(-1)!.push(word);
  }
  return commands
    .map((words) => {
      let start = 0;
      while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start] ?? "")) start += 1;
      while (["exec", "if", "then", "else", "while", "do"].includes(words[start] ?? "")) start += 1;
      return words.slice(start);
    })
    .filter((words) => words.length > 0);
}

const makeTargets = new Set(
  [...read("Makefile").matchAll(/^([A-Za-z0-9_.-]+(?: [A-Za-z0-9_.-]+)*):(?!=)/gm)].flatMap((m) =>
    m[1]!.split(" "),
  ),
);
const npmScripts = new Set(Object.keys((JSON.parse(read("package.json")) as { scripts: object }).scripts));

function executableInClone(relative: string): boolean {
  try {
    accessSync(relative, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with `telecom-etl <args>`: an unknown subcommand or a flag it does not take. */
function cliProblems(args: string[], checkFlags: boolean): string[] {
  let i = 0;
  while (args[i]?.startsWith("--") && !["--version", "--help"].includes(args[i]!)) {
    i += GLOBAL_WITH_VALUE.has(args[i]!) ? 2 : 1;
  }
  if (args[i] === undefined || ["--version", "--help", "-h", "-V"].includes(args[i]!)) return [];
  if (args[i]!.startsWith("<")) return []; // `telecom-etl <command>`: a placeholder
  let command: Command = program;
  const chain: Command[] = [program];
  for (; i < args.length && !args[i]!.startsWith("-"); i += 1) {
    const sub = command.commands.find((c) => c.name() === args[i] || c.aliases().includes(args[i]!));
    if (sub === undefined) {
      if (command === program) return [`unknown command "${args[i]}"`];
      // A group without a default command (`runs` has `list`) takes only its subcommands.
      const hasDefault = (command as unknown as { _defaultCommandName?: string })._defaultCommandName;
      if (command.commands.length > 0 && !hasDefault) {
        return [
          `unknown command "${chain
            .slice(1)
            .map((c) => c.name())
            .join(" ")} ${args[i]}"`,
        ];
      }
      break;
    }
    command = sub;
    chain.push(sub);
  }
  if (!checkFlags) return [];
  const known = new Set(chain.flatMap((c) => c.options.flatMap((o) => [o.long, o.short])).filter(Boolean));
  known.add("--help");
  return args
    .slice(i)
    .filter((word) => word.startsWith("--"))
    .map((word) => word.split("=")[0]!)
    .filter((flag) => !known.has(flag))
    .map((flag) => `${chain.map((c) => c.name()).join(" ")}: unknown flag ${flag}`);
}

const dockerfile = read("Dockerfile");

/** What is wrong with one command of a recipe run `where`; [] when it works as written. */
function commandProblems(words: string[], where: Where, checkFlags = true): string[] {
  const [program, ...args] = words as [string, ...string[]];
  const inClone = program.startsWith(INSTALLED_CLONE)
    ? program.slice(INSTALLED_CLONE.length)
    : program.replace(/^\.\//, "");
  if (program === "make") {
    const target = args.find((word) => !word.startsWith("-"));
    return target === undefined || makeTargets.has(target) ? [] : [`no make target "${target}"`];
  }
  if (program === "sh" && args[0] === "-c") {
    return commandsOfLine(args[1] ?? "").flatMap((words) => commandProblems(words, where, checkFlags));
  }
  if (program === "npm") {
    if (args[0] !== "run")
      return ["ci", "install", "link", "pack"].includes(args[0] ?? "") ? [] : [`npm ${args[0]}?`];
    return npmScripts.has(args[1] ?? "") ? [] : [`no npm script "${args[1]}"`];
  }
  if (program === "node") {
    // The CLI refuses a node older than 22.12 (exit 2); the launcher picks one that is not.
    return args[0]?.endsWith("src/cli/bin.js")
      ? [`\`node ${args[0]}\` fails under a node older than 22.12: use ./telecom-etl`]
      : [];
  }
  if (program === "telecom-etl") {
    if (where === "clone") return ["`telecom-etl` is not on PATH in a clone: use ./telecom-etl"];
    if (!/ln -s \/app\/dist\/src\/cli\/bin\.js \/usr\/local\/bin\/telecom-etl/.test(dockerfile)) {
      return ["the image puts no telecom-etl on PATH"];
    }
    return cliProblems(args, checkFlags);
  }
  if (program === "docker") return dockerProblems(args, checkFlags);
  if (SYSTEM_TOOLS.has(program) || program === "$MF" || program.startsWith(".venv/bin/")) return [];
  if (program.startsWith("/") && !program.startsWith(INSTALLED_CLONE)) return [`unknown program ${program}`];
  if (!executableInClone(inClone)) return [`${program}: no executable ${inClone} in the clone`];
  if (inClone === "telecom-etl") return cliProblems(args, checkFlags);
  if (inClone === "scripts/nightly.sh") return cliProblems(["nightly", ...args], checkFlags);
  return [];
}

/** `docker compose run --rm loader status`: the loader's arguments go to the image's CLI. */
function dockerProblems(args: string[], checkFlags: boolean): string[] {
  if (args[0] !== "compose") return [];
  const run = args.indexOf("run");
  if (run < 0) return [];
  const rest = args.slice(run + 1).filter((word) => !word.startsWith("-"));
  return rest.length > 1 ? cliProblems(rest.slice(1), checkFlags) : [];
}

/** Each fenced block of a Markdown text: its language and lines (continuations joined). */
function fencedBlocks(markdown: string): { lang: string; lines: string[] }[] {
  return [...markdown.matchAll(/^ *```(\w*)\n([\s\S]*?)^ *```/gm)].map((m) => ({
    lang: m[1]!,
    lines: m[2]!.replace(/\\\n\s*/g, " ").split("\n"),
  }));
}

type Recipe = { source: string; line: string; where: Where; checkFlags?: boolean };

/** The commands of a Markdown file (the README, every .md under docs/). */
function markdownRecipes(file: string): Recipe[] {
  const readme = read(file);
  const recipes: Recipe[] = [];
  for (const block of fencedBlocks(readme)) {
    // After `npm install -g` of the packed product (docs/how-to/install.md), `telecom-etl` is on
    // PATH, as in the image.
    let onPath = false;
    for (const line of block.lines) {
      const source = `${file} \`\`\`${block.lang}: ${line.trim()}`;
      if (block.lang === "sh") recipes.push({ source, line, where: onPath ? "image" : "clone" });
      if (block.lang === "sh" && /^\s*npm install -g /.test(line)) onPath = true;
      if (block.lang === "cron" && /^\s*[^#\s]/.test(line)) {
        recipes.push({ source, line: line.trim().split(/\s+/).slice(5).join(" "), where: "clone" });
      }
      const exec = /^ExecStart=(.*)$/.exec(line.trim());
      if (block.lang === "ini" && exec) recipes.push({ source, line: exec[1]!, where: "clone" });
    }
  }
  // Inline commands in the prose: the launcher, make, npm run, node and scripts/ as written; the
  // prose's `telecom-etl <command>` names a command (it may leave flags' values out).
  const prose = readme.replace(/^ *```[\s\S]*?^ *```/gm, "");
  for (const m of prose.matchAll(
    /`((?:\.\/telecom-etl|telecom-etl|make|npm run|node|scripts\/\S+\.sh) [^`]*)`/g,
  )) {
    const line = m[1]!.startsWith("telecom-etl ") ? `./${m[1]}` : m[1]!;
    recipes.push({ source: `${file} inline: ${m[1]}`, line, where: "clone", checkFlags: false });
  }
  return recipes;
}

/** Every container with a command in a Kubernetes document. */
function containersOf(node: unknown): { command: string[]; args?: string[] }[] {
  if (Array.isArray(node)) return node.flatMap(containersOf);
  if (node === null || typeof node !== "object") return [];
  const found = Object.values(node).flatMap(containersOf);
  return "command" in node && "image" in node ? [node as { command: string[] }, ...found] : found;
}

function deployRecipes(): Recipe[] {
  const recipes: Recipe[] = [];
  const dir = "deploy/kubernetes";
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
    for (const { command, args = [] } of containersOf(parse(read(path.join(dir, file))))) {
      const words = [...command, ...args];
      const source = `${file}: ${words.join(" ")}`;
      if (words[0] === "sh" && words[1] === "-c") recipes.push({ source, line: words[2]!, where: "image" });
      else recipes.push({ source, line: words.map((w) => `'${w}'`).join(" "), where: "image" });
    }
  }
  const compose = read("docker-compose.yml");
  const services = (parse(compose) as { services: Record<string, { build?: string; command?: string[] }> })
    .services;
  for (const [name, service] of Object.entries(services)) {
    if (service.build !== undefined && service.command !== undefined) {
      const line = ["telecom-etl", ...service.command].map((w) => `'${w}'`).join(" ");
      recipes.push({
        source: `docker-compose.yml ${name}: ${service.command.join(" ")}`,
        line,
        where: "image",
      });
    }
  }
  for (const m of compose.matchAll(/^#\s+(docker compose .*)$/gm)) {
    recipes.push({ source: `docker-compose.yml: ${m[1]}`, line: m[1]!, where: "clone" });
  }
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)!;
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)!;
  const image = [...(JSON.parse(entrypoint[1]!) as string[]), ...(JSON.parse(cmd[1]!) as string[])];
  recipes.push({
    source: `Dockerfile: ${image.join(" ")}`,
    line: ["telecom-etl", ...image.slice(2)].join(" "),
    where: "image",
  });
  for (const line of read("scripts/nightly.sh")
    .split("\n")
    .filter((l) => /^exec /.test(l))) {
    recipes.push({ source: `scripts/nightly.sh: ${line}`, line, where: "clone" });
  }
  return recipes;
}

function demoRecipes(): Recipe[] {
  const line = embeddedWarehouseLine(".telecom-etl/embedded", process.cwd());
  const command = /`([^`]+)`/.exec(line)![1]!;
  return [{ source: `demo's last line: ${line}`, line: command, where: "clone" }];
}

function problemsOf(recipes: Recipe[]): string[] {
  return recipes.flatMap((recipe) =>
    commandsOfLine(recipe.line).flatMap((words) =>
      commandProblems(words, recipe.where, recipe.checkFlags ?? true).map(
        (problem) => `${recipe.source}\n    ${problem}`,
      ),
    ),
  );
}

describe("recipes' commands", () => {
  const readme = [
    "README.md",
    ...readdirSync("docs", { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ].flatMap(markdownRecipes);
  const deploy = deployRecipes();
  const demo = demoRecipes();

  it("finds the recipes", () => {
    const sources = [...readme, ...deploy, ...demo].map((r) => r.source).join("\n");
    for (const expected of [
      "docs/how-to/deploy-cron-systemd.md",
      "docs/tutorial/first-night.md",
      "nightly.sh",
      "ExecStart=",
      "worker",
      "docker compose run",
      "warehouse up",
      "make demo",
    ]) {
      expect(sources).toContain(expected);
    }
    expect(deploy.filter((r) => r.source.startsWith("cronjob.yaml")).length).toBe(1);
  });

  it("README's and docs/'s commands exist as written", () => {
    expect(problemsOf(readme)).toEqual([]);
  });

  it("deploy files', the Dockerfile's and scripts/nightly.sh's commands exist", () => {
    expect(problemsOf(deploy)).toEqual([]);
  });

  it("the demo's last line suggests the launcher, which exists", () => {
    expect(demo[0]!.line).toBe("./telecom-etl warehouse up");
    expect(problemsOf(demo)).toEqual([]);
    expect(ownCommand("/")).toBe(path.resolve("telecom-etl"));
  });

  it.each([
    ["./telecom-etl warehouse start", "clone"],
    ["./telecom-etl run --allow-past-noww", "clone"],
    ["make deploy", "clone"],
    ["npm run nope", "clone"],
    ["node dist/src/cli/bin.js run", "clone"],
    ["DATABASE_URL=x telecom-etl run", "clone"],
    ["/opt/telecom-etl/node_modules/.bin/telecom-etl worker", "clone"],
    ["/opt/telecom-etl/scripts/nightly.sh --no-such-flag", "clone"],
    ["docker compose run --rm loader statuss", "clone"],
    ["sh -c 'telecom-etl nightlyy; exit 0'", "image"],
  ] as const)("fails a wrong recipe: %s", (line, where) => {
    expect(problemsOf([{ source: line, line, where }])).not.toEqual([]);
  });

  it("the launcher's Node 22 is where the Makefile installs it", () => {
    const makefile = read("Makefile");
    const stamps = /^STAMPS\s*:=\s*(\S+)$/m.exec(makefile)![1]!;
    const nodeBin = /^node_bin = (\S+)$/m.exec(makefile)![1]!;
    const expected = nodeBin.replace("$(STAMPS)", stamps).replace("$(1)", "22").replace("$(ARCH)", "$arch");
    expect(read("telecom-etl")).toContain(`"$root/${expected}"`);
    expect(existsSync("telecom-etl")).toBe(true);
  });
});
