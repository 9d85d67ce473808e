import { KnownSecrets } from "../core/known-secrets.js";
import { silentLogger } from "../core/log.js";
import type { Runtime } from "./command-context.js";

/**
 * A Runtime for building the CLI's program without running a command: its help texts (the
 * generated docs/reference/commands.md) and the recipes' checks.
 */
export const inertRuntime: Runtime = {
  signal: new AbortController().signal,
  secrets: new KnownSecrets(),
  onCleanup: () => () => true,
  logger: () => silentLogger,
  setExitCode: () => {},
  endsOnSignal: () => {},
};
