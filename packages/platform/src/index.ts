/** The platform's contract, shared by the loader and the sandbox: one schema per resource. */

export * from "./api-key.js";
export * from "./api-revision.js";
export * from "./call.js";
export * from "./call-transcription.js";
export * from "./catalogue.js";
export * from "./cdr.js";
export * from "./common.js";
export * from "./exact-number.js";
export * from "./invoice.js";
export * from "./message.js";
export * from "./numbers.js";
export * from "./permissions.js";
export * from "./recording.js";
export * from "./resource.js";
export * from "./scaffolded-resources.js";
export * from "./short-link-metric.js";
export * from "./sip-trunk.js";
export * from "./sub-account.js";
export * from "./ten-dlc.js";
export * from "./transaction.js";
export * from "./transcription.js";
export * from "./validation.js";
export * from "./widget-token.js";
