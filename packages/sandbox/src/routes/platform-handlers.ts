import { accountRoutes } from "./account-routes.js";
import { analyticsRoutes } from "./analytics-routes.js";
import { callRoutes } from "./call-routes.js";
import { callTranscriptionRoutes } from "./call-transcription-routes.js";
import { cdrRoutes } from "./cdr-routes.js";
import { genericListRoutes } from "./generic-list-routes.js";
import { invoiceRoutes } from "./invoice-routes.js";
import { messageRoutes } from "./message-routes.js";
import { numberRoutes } from "./number-routes.js";
import { recordingRoutes } from "./recording-routes.js";
import type { PlatformHandler } from "./route-types.js";
import { tenDlcRoutes } from "./ten-dlc-routes.js";
import { trunkRoutes } from "./trunk-routes.js";

/** Every platform route the sandbox serves, of both API revisions (every route of `PLATFORM_ROUTES`). */
export const PLATFORM_HANDLERS: readonly PlatformHandler[] = [
  ...cdrRoutes,
  ...callTranscriptionRoutes,
  ...recordingRoutes,
  ...genericListRoutes,
  ...invoiceRoutes,
  ...analyticsRoutes,
  ...accountRoutes,
  ...numberRoutes,
  ...trunkRoutes,
  ...callRoutes,
  ...tenDlcRoutes,
  ...messageRoutes,
];
