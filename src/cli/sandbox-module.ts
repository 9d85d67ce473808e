import { UsageError } from "../core/errors.js";

/** What the `sandbox` and `demo` commands use of the sandbox. */
export interface SandboxModule {
  readonly startSandbox: typeof import("@telecom-etl/sandbox/start-sandbox.js").startSandbox;
  readonly resolveSandboxOptions: typeof import("@telecom-etl/sandbox/sandbox-options.js").resolveSandboxOptions;
}

/**
 * The sandbox, loaded only by the commands that run it: the packed product (`npm pack`, the image)
 * ships without it, so there its absence is a usage error saying where the sandbox lives.
 */
export async function loadSandbox(): Promise<SandboxModule> {
  try {
    const [{ startSandbox }, { resolveSandboxOptions }] = await Promise.all([
      import("@telecom-etl/sandbox/start-sandbox.js"),
      import("@telecom-etl/sandbox/sandbox-options.js"),
    ]);
    return { startSandbox, resolveSandboxOptions };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new UsageError(
      "the sandbox is not part of this installation (the package and the image ship the loader only): run it from a clone of the repository, `./telecom-etl sandbox`",
    );
  }
}
