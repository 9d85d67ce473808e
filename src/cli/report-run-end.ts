/**
 * What happens once a loading command (`run`, `backfill`, `nightly`) has ended, whatever its code:
 * a nightly's dbt steps are recorded on its run, one alert is posted when the end calls for one,
 * and the metrics are written and/or pushed. None of it changes the exit code: a failure here is a
 * warning in the log.
 */
import { describeError } from "../core/errors.js";
import { alertText } from "../monitoring/alert-message.js";
import { postAlert } from "../monitoring/post-alert.js";
import { pushMetrics, writeMetricsFile } from "../monitoring/publish-metrics.js";
import type { RunEnd } from "../monitoring/run-end.js";
import { renderRunMetrics } from "../monitoring/run-metrics.js";
import { recordRunDbt } from "../warehouse/state/run-history.js";
import { readStreamFreshness } from "../warehouse/state/stream-freshness.js";
import { listUnknownFields } from "../warehouse/state/unknown-fields.js";
import type { CommandContext } from "./command-context.js";

/** Records, alerts and publishes the end of a loading command (see the module comment). */
export async function reportRunEnd(ctx: CommandContext, end: RunEnd): Promise<void> {
  const warn = (what: string) => (error: unknown) =>
    ctx.log.warn(
      { error: ctx.secrets.maskText(describeError(error)) },
      `${what} (the exit code is unchanged)`,
    );
  if (end.command === "nightly" && end.result !== undefined) {
    await recordRunDbt(
      ctx.warehouse.db,
      end.result.runId,
      {
        command: end.command,
        exitCode: end.exitCode,
        steps: end.dbtSteps,
      },
      new Date(end.endedAt),
    ).catch(warn("could not record the nightly's dbt steps"));
  }
  const monitoring = ctx.config.monitoring;
  const webhook = monitoring?.alertWebhookUrl;
  if (webhook !== undefined) {
    ctx.secrets.add(webhook.reveal());
    const text = alertText(end);
    if (text !== undefined) {
      await postAlert(webhook, ctx.secrets.maskText(text))
        .then(() => ctx.log.info({ exitCode: end.exitCode }, "alert posted to the webhook"))
        .catch(warn("could not deliver the alert"));
    }
  }
  const textfile = monitoring?.metricsTextfile;
  const gateway = monitoring?.metricsPushgatewayUrl;
  if (textfile === undefined && gateway === undefined) return;
  if (gateway !== undefined) ctx.secrets.add(gateway.reveal());
  let text: string;
  try {
    const unknown = await listUnknownFields(ctx.warehouse.db);
    const perStream: Record<string, number> = {};
    for (const f of unknown) perStream[f.stream] = (perStream[f.stream] ?? 0) + 1;
    text = await renderRunMetrics({
      end,
      freshness: await readStreamFreshness(ctx.warehouse.db),
      unknownFields: perStream,
      now: end.endedAt,
    });
  } catch (error) {
    warn("could not compute the metrics")(error);
    return;
  }
  if (textfile !== undefined)
    await writeMetricsFile(textfile, text)
      .then(() => ctx.log.debug({ file: textfile }, "metrics written"))
      .catch(warn(`could not write the metrics to ${textfile}`));
  if (gateway !== undefined)
    await pushMetrics(gateway, text, end.host)
      .then(() => ctx.log.debug("metrics pushed"))
      .catch(warn("could not push the metrics"));
}
