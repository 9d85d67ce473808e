/** The platform sandbox as a library: start it, read its world, query its truth over HTTP. */
export type { FaultProfile, FaultProfileInput } from "./faults/fault-profile.js";
export { BUILT_IN_PROFILES, resolveFaultProfile } from "./faults/fault-profile.js";
export type { SandboxOptions } from "./sandbox-options.js";
export { type RunningSandbox, startSandbox } from "./start-sandbox.js";
export type { SandboxAccount, SandboxWorld } from "./world.js";
export { type AccountView, accountView, worldView } from "./world-view.js";
