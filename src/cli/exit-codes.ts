/**
 * Kept only for modules not yet moved to `src/exit-codes.ts` (command-context.ts, sandbox-command.ts,
 * owned elsewhere); new code imports `../exit-codes.js`.
 */
export { EXIT, type ExitCode, exitCodeFor } from "../exit-codes.js";
