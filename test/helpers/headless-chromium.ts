import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's `chromium` package (`make test` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Flags of a headless Chromium that runs as root in a container and touches no network of its
 * own (no updates, no sync, no QUIC), so a page that tried to fetch anything would show it.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Starts a headless Chromium driven by playwright-core; close it after use. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium; make test does it) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
}
