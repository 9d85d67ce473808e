/**
 * Posts an alert to a Slack-compatible incoming webhook (`{"text": …}`). The webhook's URL is a
 * secret (its path is its key): no message names more of it than its host. The text is sent as
 * Slack shows it literally: the alert quotes platform text (error messages, names), in which
 * `<!channel>` would notify a whole channel and `<http://evil|details>` would be a link.
 */
import type { Secret } from "../core/secret.js";
import { printable } from "../core/terminal-text.js";

/** Longest wait for the webhook to answer. */
export const ALERT_TIMEOUT_MS = 10_000;

/**
 * `text` escaped the way Slack documents for message text (`&` → `&amp;`, `<` → `&lt;`, `>` →
 * `&gt;`), so no part of it is a mention, a link or a command, and without control characters.
 */
export function slackText(text: string): string {
  return printable(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Posts `text` (escaped by {@link slackText}); throws an Error naming the webhook's host and what went wrong (never its path). */
export async function postAlert(url: Secret, text: string, timeoutMs = ALERT_TIMEOUT_MS): Promise<void> {
  const target = url.reveal();
  const host = new URL(target).host;
  let response: Response;
  try {
    response = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: slackText(text) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`alert webhook at ${host} not reached: ${reason.split(target).join("***")}`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new Error(`alert webhook at ${host} answered HTTP ${response.status}`);
}
