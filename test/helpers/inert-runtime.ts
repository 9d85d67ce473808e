import type { Runtime } from "../../src/cli/command-context.js";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { silentLogger } from "../../src/core/log.js";

/** A Runtime for building the CLI's program without running a command (help texts, recipes). */
export const inertRuntime: Runtime = {
  signal: new AbortController().signal,
  secrets: new KnownSecrets(),
  onCleanup: () => () => true,
  logger: () => silentLogger,
  setExitCode: () => {},
  endsOnSignal: () => {},
};
