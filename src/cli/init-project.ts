/**
 * What `telecom-etl init` writes: a commented `telecom-etl.yaml` for the accounts asked for and the
 * `.env.example` naming exactly the variables that config refers to. Both are checked before either
 * is written: the config must load as any command would load it, and no file is overwritten
 * without `--force`.
 */
import { existsSync } from "node:fs";
import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { configFromFile } from "../config/config.js";
import type { ApiRevisionSetting } from "../config/config-file-schema.js";
import { configFileSchema } from "../config/config-file-schema.js";
import { apiKeyEnvOf, configTemplate, type TemplateAccount } from "../config/config-template.js";
import { ENV_FILE_NAME } from "../config/env-file.js";
import { envExampleOf, envVariablesOf } from "../config/env-variables.js";
import { UsageError } from "../core/errors.js";

/** The config file `init` writes: the name every command finds in its working folder. */
export const INIT_CONFIG_FILE = "telecom-etl.yaml";

/** The example env file `init` writes beside it. */
export const INIT_ENV_EXAMPLE_FILE = `${ENV_FILE_NAME}.example`;

/** What `init` was asked for (flags, or answers at a terminal). */
export interface InitAnswers {
  readonly dir: string;
  readonly accounts: readonly string[];
  readonly baseUrl: string;
  readonly apiRevision: ApiRevisionSetting | undefined;
  readonly force: boolean;
}

/** The files `init` wrote and the variables the user has to set. */
export interface InitResult {
  readonly files: readonly string[];
  readonly requiredVariables: readonly string[];
}

/** The flag that gave the setting at `path` of the config (`--account acme-EU`), else the path. */
function flagOf(path: readonly PropertyKey[], answers: InitAnswers): string {
  const [top, index, key] = path;
  if (top !== "accounts" || typeof index !== "number") return path.join(".");
  if (key === "name" || key === "api_key_env") return `--account ${answers.accounts[index]}`;
  if (key === "base_url") return "--base-url";
  return key === "api_revision" ? "--api-revision" : path.join(".");
}

/** The config text for `answers`, refused (one line per problem, naming the flag's setting) unless it loads. */
function checkedConfig(answers: InitAnswers): { text: string; accounts: TemplateAccount[] } {
  const accounts = answers.accounts.map((name) => ({
    name,
    baseUrl: answers.baseUrl,
    apiKeyEnv: apiKeyEnvOf(name),
    apiRevision: answers.apiRevision,
  }));
  const text = configTemplate(accounts);
  const parsed = configFileSchema.safeParse(parseYaml(text));
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues
        .map((issue) => `init: ${flagOf(issue.path, answers)}: ${issue.message}`)
        .filter((line, index, lines) => lines.indexOf(line) === index)
        .join("\n"),
    );
  }
  // The checks loadConfig makes beyond the schema (duplicate names, sub-accounts), keys not needed yet.
  configFromFile(parsed.data, { source: undefined, requireAccounts: false }, {});
  return { text, accounts };
}

/** Creates `answers.dir` and writes `files` into it; what the system refuses is one line naming the folder. */
async function writeFiles(answers: InitAnswers, files: readonly [string, string][]): Promise<void> {
  if ((await stat(answers.dir).catch(() => undefined))?.isDirectory() === false)
    throw new UsageError(`init: --dir ${answers.dir} is a file, not a folder; choose another --dir`);
  try {
    await mkdir(answers.dir, { recursive: true });
    for (const [file, text] of files)
      await writeFile(file, text, { flag: answers.force ? "w" : "wx", mode: 0o644 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    const why =
      code === "EEXIST"
        ? "a file appeared there meanwhile"
        : "no permission, a read-only file system, or a file in its path";
    throw new UsageError(
      `init: cannot write into --dir ${answers.dir} (${code}: ${why}); choose another --dir`,
    );
  }
}

/** Writes the project's config and `.env.example` into `answers.dir` (created when missing). */
export async function initProject(answers: InitAnswers): Promise<InitResult> {
  if (answers.accounts.length === 0) throw new UsageError("init: no account; give one with --account NAME");
  const twice = answers.accounts.find((name, index) => answers.accounts.indexOf(name) !== index);
  if (twice !== undefined)
    throw new UsageError(`init: --account ${twice} is given twice; name each account once`);
  const { text, accounts } = checkedConfig(answers);
  const variables = envVariablesOf(accounts);
  const files = [INIT_CONFIG_FILE, INIT_ENV_EXAMPLE_FILE].map((name) => path.join(answers.dir, name));
  const existing = files.filter((file) => existsSync(file));
  if (existing.length > 0 && !answers.force) {
    throw new UsageError(
      `init: ${existing.join(" and ")} already exist${existing.length === 1 ? "s" : ""}; pass --force to overwrite, or --dir to write elsewhere`,
    );
  }
  await writeFiles(answers, [
    [files[0]!, text],
    [files[1]!, envExampleOf(variables)],
  ]);
  return { files, requiredVariables: variables.filter((v) => v.required).map((v) => v.name) };
}
