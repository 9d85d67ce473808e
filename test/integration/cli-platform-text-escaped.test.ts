import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startRecordingServer } from "../helpers/recording-server.js";
import { terminalControls } from "../helpers/terminal-controls.js";
import type { FaultRule } from "./fault-proxy.js";

/**
 * Issue 32 item 13, through the CLI (spawned processes) against a platform whose text carries Slack
 * markup and terminal escape sequences: an error message (`<!channel>`, a link whose text hides its
 * target, a screen clear, an OSC 8 hyperlink, a bell, a carriage return, an 8-bit CSI, a bidi
 * override) and the name of a field the loader does not know (a colour sequence in it). The alert
 * reaches the webhook escaped for Slack; the run summary, the log lines (JSON and pretty),
 * `status`, `schema` and `runs show` carry no control character.
 */
const NOW = "2026-08-04T03:00:00Z";
const FAILING_DAY = "2026-08-02";
const ESC = "\u001b";
const BEL = "\u0007";
const HOSTILE =
  `<!channel> see <http://evil.example|the runbook> & ${ESC}[2J${ESC}[H` +
  `${ESC}]8;;http://evil.example${BEL}click here${ESC}]8;;${BEL}${BEL}\rall fine \u009b31mred \u202eoknur`;
const FIELD = `note${ESC}[31mred${ESC}[0m`;

it.override({
  sandboxOptions: { seed: 3213, start: "2026-08-01", days: 3, accounts: 1, callsPerDay: 20, now: NOW },
});

it.override("faultRule", () => {
  const rule: FaultRule = (url) => {
    if (url.pathname !== "/v1/cdr") return undefined;
    if (url.searchParams.get("from") === FAILING_DAY) return { status: 422, body: { message: HOSTILE } };
    return {
      rewrite: (body) => {
        const page = body as { items: Record<string, unknown>[] };
        return { ...page, items: page.items.map((cdr) => ({ ...cdr, [FIELD]: HOSTILE })) };
      },
    };
  };
  return rule;
});

describe("platform text on terminals and in alerts", () => {
  it("is escaped for Slack in the alert and stripped of control characters in every output", async ({
    rig,
  }) => {
    const hooks = await startRecordingServer();
    try {
      const dir = await mkdtemp(path.join(os.tmpdir(), "platform-text-"));
      const config = [
        "accounts:",
        "  - name: acme",
        `    base_url: ${rig.apiUrl}`,
        "    api_key_env: SANDBOX_KEY",
        '    api_revision: "2024"',
        "    streams: [cdrs]",
        `start_date: ${rig.sandbox.world.start}`,
        `alert_webhook_url: ${hooks.url}/hook/T000/B000/webhook-secret-part`,
      ].join("\n");
      await writeFile(path.join(dir, "telecom-etl.yaml"), `${config}\n`);
      const env = {
        SANDBOX_KEY: rig.sandbox.world.accounts[0]!.apiKey,
        DATABASE_URL: rig.db.url,
        TELECOM_ETL_CONFIG: path.join(dir, "telecom-etl.yaml"),
        TELECOM_ETL_NOW: NOW,
      };
      const cli = async (args: readonly string[], code: number) => {
        const result = await runCli(args, { env, cwd: dir });
        expect(result.code, `${args.join(" ")}: ${result.stderr.slice(-2000)}`).toBe(code);
        expect(terminalControls(result.stdout), `${args.join(" ")} stdout`).toEqual([]);
        expect(terminalControls(result.stderr), `${args.join(" ")} stderr`).toEqual([]);
        return result;
      };

      // The run with pretty log lines (the new field's warning names it), then again with JSON
      // lines: the failed day fails again.
      const run = await cli(["--log-format", "pretty", "run"], 1);
      expect(run.stdout).toContain(
        "<!channel> see <http://evil.example|the runbook> & click hereall fine red oknur",
      );
      expect(run.stdout).toContain("new field from the platform: cdrs.notered");
      await cli(["run"], 1);

      // Each run's alert, as Slack shows it: the markup is text, no control character.
      const alerts = hooks.requests.filter((r) => r.url.startsWith("/hook"));
      expect(alerts).toHaveLength(2);
      for (const alert of alerts) {
        const { text } = JSON.parse(alert.body) as { text: string };
        expect(text).toContain(
          "&lt;!channel&gt; see &lt;http://evil.example|the runbook&gt; &amp; click here",
        );
        expect(text).not.toMatch(/[<>]/);
        expect(terminalControls(text)).toEqual([]);
      }

      const status = await cli(["status"], 0);
      expect(status.stdout).toContain(`failed ${FAILING_DAY}..2026-08-03 in run`);
      expect(status.stdout).toContain(
        "fields not in the schema (kept in _extra; see telecom-etl schema): notered",
      );
      const schema = await cli(["schema"], 0);
      expect(schema.stdout).toContain("cdrs.notered  string");
      const shown = await cli(["runs", "show", "1"], 0);
      expect(shown.stdout).toContain("click hereall fine");
      expect(shown.stdout).toContain("cdrs.notered (string)");
    } finally {
      await hooks.close();
    }
  });
});
