import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import { API_REVISION_SETTINGS, type ApiRevisionSetting } from "../config/config-file-schema.js";
import { EXIT } from "../core/exit-codes.js";
import type { Runtime } from "./command-context.js";
import { withExample } from "./global-options.js";
import { INIT_CONFIG_FILE, INIT_ENV_EXAMPLE_FILE, type InitAnswers, initProject } from "./init-project.js";
import { collect } from "./parse-flags.js";

/** The account `init` writes when none is named (and nobody is at a terminal to ask). */
const DEFAULT_ACCOUNT = "main";

/** The base URL `init` writes when none is given and TELECOM_API_URL is not set: to be edited. */
const PLACEHOLDER_BASE_URL = "https://api.example-platform.com";

interface InitFlags {
  readonly dir: string;
  readonly account?: string[];
  readonly baseUrl?: string;
  readonly apiRevision?: ApiRevisionSetting;
  readonly force?: boolean;
}

/**
 * The answers: the flags, and at a terminal (stdin a TTY) a question for each one missing; elsewhere
 * (a script, CI) no question, the defaults.
 */
async function answersOf(flags: InitFlags, env: NodeJS.ProcessEnv): Promise<InitAnswers> {
  const defaults = { accounts: DEFAULT_ACCOUNT, baseUrl: env.TELECOM_API_URL || PLACEHOLDER_BASE_URL };
  let accounts = flags.account;
  let baseUrl = flags.baseUrl;
  if (process.stdin.isTTY && (accounts === undefined || baseUrl === undefined)) {
    const terminal = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const ask = async (question: string, fallback: string) =>
        (await terminal.question(`${question} [${fallback}]: `)).trim() || fallback;
      accounts ??= (await ask("Account names (comma-separated)", defaults.accounts)).split(",");
      baseUrl ??= await ask("The platform's base URL (without /v1)", defaults.baseUrl);
    } finally {
      terminal.close();
    }
  }
  return {
    dir: flags.dir,
    accounts: (accounts ?? [defaults.accounts]).map((name) => name.trim()).filter((name) => name !== ""),
    baseUrl: baseUrl ?? defaults.baseUrl,
    apiRevision: flags.apiRevision,
    force: flags.force === true,
  };
}

/** `telecom-etl init`: writes a commented config and `.env.example` for the user's accounts. */
export function registerInitCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("init")
    .description(
      `start a project: write a commented ${INIT_CONFIG_FILE} for your accounts and a ${INIT_ENV_EXAMPLE_FILE} naming the variables it needs (asks at a terminal, never elsewhere; overwrites nothing without --force)`,
    )
    .option("--dir <folder>", "where to write them (created when missing)", ".")
    .option("--account <name>", `an account to configure; repeatable (default: ${DEFAULT_ACCOUNT})`, collect)
    .option(
      "--base-url <url>",
      `the platform's base URL, without /v1 (default: $TELECOM_API_URL, else ${PLACEHOLDER_BASE_URL})`,
    )
    .addOption(
      new Option(
        "--api-revision <revision>",
        "the accounts' api_revision (default: auto, left commented)",
      ).choices(API_REVISION_SETTINGS),
    )
    .option("--force", "overwrite the files when they exist");
  withExample(
    command,
    "telecom-etl init --account acme --account acme-eu --base-url https://api.example-platform.com",
    "telecom-etl init --dir /etc/telecom-etl --account acme --api-revision 2026 --force",
  );
  command.action(async (flags: InitFlags) => {
    const answers = await answersOf(flags, process.env);
    const result = await initProject(answers);
    for (const file of result.files) process.stdout.write(`wrote ${file}\n`);
    const envFile = INIT_ENV_EXAMPLE_FILE.replace(/\.example$/, "");
    process.stdout.write(
      `next: ${answers.dir === "." ? "" : `cd ${answers.dir}; `}install -m 600 ${INIT_ENV_EXAMPLE_FILE} ${envFile} and set ${result.requiredVariables.join(", ")} in it${
        answers.baseUrl === PLACEHOLDER_BASE_URL ? `; set each account's base_url in ${INIT_CONFIG_FILE}` : ""
      }; then run telecom-etl check\n`,
    );
    runtime.setExitCode(EXIT.ok);
  });
}
