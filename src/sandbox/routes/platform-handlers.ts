import { analyticsRoutes } from "./analytics-routes.js";
import { cdrRoutes } from "./cdr-routes.js";
import { invoiceRoutes } from "./invoice-routes.js";
import type { PlatformHandler } from "./route-types.js";
import { shortLinkRoutes } from "./short-link-routes.js";

/** Every platform route the sandbox serves. */
export const PLATFORM_HANDLERS: readonly PlatformHandler[] = [
  ...cdrRoutes,
  ...shortLinkRoutes,
  ...invoiceRoutes,
  ...analyticsRoutes,
];
