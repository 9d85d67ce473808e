/** The CLI's inert Runtime, where the tests have always imported it from. */
export { inertRuntime } from "../../src/cli/inert-runtime.js";
