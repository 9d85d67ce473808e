// Screenshots the night's page in Debian's headless Chromium (the one the tests use):
//   node scripts/screenshot-report.mjs night.html docs/night-report.png
// docs/night-report.png is `make demo` followed by `telecom-etl report`, taken this way.
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [html, png] = process.argv.slice(2);
if (!html || !png) {
  process.stderr.write("usage: node scripts/screenshot-report.mjs PAGE.html OUT.png\n");
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1040, height: 900 } });
  await page.goto(pathToFileURL(html).href, { waitUntil: "load" });
  await page.screenshot({ path: png, fullPage: true });
} finally {
  await browser.close();
}
