import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { CDR_TYPES } from "@telecom-etl/platform/cdr.js";
import { resourcePath } from "@telecom-etl/platform/resource.js";
import type { RunningSandbox, SandboxOptions } from "@telecom-etl/sandbox";
import { BUILT_IN_PROFILES, PAGE_FAULTS, REQUEST_FAULTS } from "@telecom-etl/sandbox/faults/fault-profile.js";
import { TRUTH_STREAMS, type TruthStream } from "@telecom-etl/sandbox/truth.js";
import { TRUTH_REFERENCES } from "@telecom-etl/sandbox/truth-references.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { admin, listAllRows, type Malformed, ndjson, platform } from "./sandbox-client.js";

/**
 * Issue 32 item 17, "the truth contradicts itself": the truth exports agree with each other and
 * with the routes at any clock. For several seeds and revisions, every built-in fault profile, and
 * four clocks (mid-day, early on a day, right after a day ends, the wall clock), per account:
 *
 * - every reference `TRUTH_REFERENCES` declares holds: each child line names a parent that is in
 *   the parent's truth at the same clock (kept; or, for a child with a list of its own, rejected
 *   and described by the parent's `/malformed`). Children are read before their parents, so a
 *   ticking clock can only add parents;
 * - the CDR list, `GET /v1/cdr/{uuid}` and the truth serve each call the same bytes (a row a fault
 *   changed included), and so do the recording list and `GET /v1/recordings/{call_uuid}`;
 * - each transcription of the truth is what its route under the CDR answers;
 * - a late CDR not visible yet is not visible through any route under the call.
 *
 * The profiles' row faults, null charges and drift apply as defined; their request and page faults
 * are turned off: they change no row (sandbox-faults covers them) and would only slow the reads.
 */

const PROFILES = Object.keys(BUILT_IN_PROFILES) as (keyof typeof BUILT_IN_PROFILES)[];
const off = (faults: readonly string[]) => Object.fromEntries(faults.map((fault) => [fault, 0]));

/** Small worlds (two accounts, five days, a third of the CDRs late) on each revision. */
const WORLDS = [
  { seed: 6161, apiRevision: "2024" },
  { seed: 5151, apiRevision: "2026" },
  { seed: 72, apiRevision: "2026", dropDeprecated: true },
] as const satisfies readonly SandboxOptions[];
const SHAPE = { days: 5, accounts: 2, callsPerDay: 120, lateShare: 0.3 } as const;
const START = "2026-05-01";

/** Clocks: fixed in a world starting on START, or the wall clock in a world ending today. */
const CLOCKS = [
  { name: "mid-day", now: "2026-05-05T12:34:56Z" },
  // The fifth day lists a reverted duplicate of its first placed call's charge; that call is late
  // on a sub-account of seeds 6161 and 72 (visible at 09:41 and 08:27), so it is hidden at 06:00.
  { name: "early on a day", now: "2026-05-05T06:00:00Z" },
  { name: "right after a day ends", now: "2026-05-04T00:01:30Z" },
  { name: "the wall clock", now: "real" },
] as const;

const CASES = PROFILES.flatMap((profile) =>
  WORLDS.flatMap((world) => CLOCKS.map((clock) => ({ profile, world, clock }))),
);

type Line = Record<string, unknown>;
const canonical = (value: unknown) => JSON.stringify(value);

/** Runs `task` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** How deep a stream is among the references: 0 for one naming no parent. */
function depth(stream: TruthStream): number {
  const references = TRUTH_REFERENCES[stream] ?? [];
  return references.length === 0 ? 0 : 1 + Math.max(...references.map((r) => depth(r.parent)));
}

/** The truth exports of one account at one moment, read children first. */
interface AccountTruth {
  readonly lines: ReadonlyMap<TruthStream, readonly Line[]>;
  readonly malformed: ReadonlyMap<TruthStream, readonly Malformed[]>;
}

/** Reads every truth export of `account` that names or is named by a reference, deepest children first. */
async function readTruth(sandbox: RunningSandbox, account: string): Promise<AccountTruth> {
  const related = new Set<TruthStream>();
  for (const [child, references] of Object.entries(TRUTH_REFERENCES)) {
    for (const reference of references ?? []) related.add(child as TruthStream).add(reference.parent);
  }
  const lines = new Map<TruthStream, Line[]>();
  const malformed = new Map<TruthStream, Malformed[]>();
  for (const stream of [...related].sort((a, b) => depth(b) - depth(a))) {
    lines.set(stream, await ndjson(sandbox, `/_sandbox/truth/${stream}?account=${account}`));
    malformed.set(stream, await ndjson(sandbox, `/_sandbox/truth/${stream}/malformed?account=${account}`));
  }
  return { lines, malformed };
}

/** Per reference, how many child lines named a parent, and the ones whose parent is not in the truth. */
function checkReferences(truth: AccountTruth): { checked: Map<string, number>; orphans: string[] } {
  const checked = new Map<string, number>();
  const orphans: string[] = [];
  for (const [child, references] of Object.entries(TRUTH_REFERENCES)) {
    for (const reference of references ?? []) {
      const parents = new Set<string | null>(
        truth.lines.get(reference.parent)!.map((line) => reference.parentKey(line)),
      );
      if (reference.through === "list") {
        for (const m of truth.malformed.get(reference.parent)!) {
          if (!m.rejected) continue;
          parents.add(reference.parentKey(m.raw));
          parents.add(m.id ?? null);
        }
      }
      const name = `${child} -> ${reference.parent}`;
      for (const line of truth.lines.get(child as TruthStream)!) {
        const key = reference.childKey(line);
        if (key === null) continue;
        checked.set(name, (checked.get(name) ?? 0) + 1);
        if (!parents.has(key)) orphans.push(`${name}: ${key} (${canonical(line).slice(0, 160)})`);
      }
    }
  }
  return { checked, orphans };
}

/** The platform paths of one revision the checks read. */
function pathsOf(revision: ApiRevision) {
  return {
    cdrs: CATALOGUE.cdrs.paths[revision],
    cdr: (id: string) => `${CATALOGUE.cdrs.paths[revision]}/${encodeURIComponent(id)}`,
    recordings: CATALOGUE.recordings.paths[revision],
    recording: (id: string) => `${CATALOGUE.recordings.paths[revision]}/${encodeURIComponent(id)}`,
    transcription: (id: string) => resourcePath(CATALOGUE.call_transcription, revision, [id]),
  };
}
type Paths = ReturnType<typeof pathsOf>;

/** What one account's check saw, for the test to require that it saw something. */
interface Seen {
  cdrs: number;
  changedCdrs: number;
  recordings: number;
  transcriptions: number;
  hiddenLate: number;
}

/** One account's check: its sandbox, paths, the truth read first, and what the checks saw. */
interface Check {
  readonly sandbox: RunningSandbox;
  readonly account: { readonly name: string; readonly index: number };
  readonly paths: Paths;
  readonly before: AccountTruth;
  readonly seen: Seen;
}

/** The world's first and last day, `YYYY-MM-DD`. */
function worldDays(sandbox: RunningSandbox): { first: string; last: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { first: day(sandbox.world.startMs), last: day(sandbox.world.endMs - 86_400_000) };
}

/** A CDR the list served, as the truth writes it (plus `direction`), and its call id. */
interface ListedCdr {
  readonly line: string;
  readonly row: Line;
  readonly id: string;
}

/**
 * The CDR list against the truth and the lookup: every listed row is a line of the truth read
 * after it or a rejected `/malformed` raw; the truth and `/malformed` read before it are in it;
 * `GET /v1/cdr/{id}` answers each row's bytes plus `recording_url`.
 */
async function checkCdrs({ sandbox, account, paths, before, seen }: Check): Promise<void> {
  const range = `from=${worldDays(sandbox).first}&to=${worldDays(sandbox).last}`;
  const listed: ListedCdr[] = [];
  const listedRows: { row: Line; direction: string }[] = [];
  for (const type of CDR_TYPES) {
    const { rows } = await listAllRows(sandbox, paths.cdrs, `${range}&type=${type}`, "items", account.index);
    for (const row of rows) listedRows.push({ row, direction: type });
  }
  const after = await ndjson(sandbox, `/_sandbox/truth/cdrs?account=${account.name}`);
  const malformed = await ndjson<Malformed>(
    sandbox,
    `/_sandbox/truth/cdrs/malformed?account=${account.name}`,
  );
  const kept = new Set(after.map(canonical));
  const rejectedIds = new Map(
    malformed.filter((m) => m.rejected).map((m) => [canonical([m.direction, m.raw]), m.id]),
  );
  for (const { row, direction } of listedRows) {
    const line = canonical({ ...row, direction });
    const id = (row.uuid ?? row.call_id ?? rejectedIds.get(canonical([direction, row]))) as
      | string
      | undefined;
    expect(kept.has(line) || rejectedIds.has(canonical([direction, row])), `listed CDR ${line}`).toBe(true);
    expect(id, `the call id of ${line}`).toBeDefined();
    listed.push({ line, row, id: id! });
  }
  const lines = new Set(listed.map((l) => l.line));
  for (const line of before.lines.get("cdrs")!)
    expect(lines.has(canonical(line)), `truth CDR ${canonical(line)} is listed`).toBe(true);
  // Read before the list: a wall clock may add rows between the two reads, never remove one.
  for (const m of before.malformed.get("cdrs")!)
    expect(
      lines.has(canonical({ ...m.raw, direction: m.direction })),
      `changed CDR ${canonical(m)} is listed`,
    ).toBe(true);
  seen.cdrs += listed.length;
  seen.changedCdrs += before.malformed.get("cdrs")!.length;
  await eachLimited(listed, 8, async ({ row, id }) => {
    const answer = await platform(sandbox, paths.cdr(id), { account: account.index });
    expect(answer.status, `GET ${paths.cdr(id)}`).toBe(200);
    const { recording_url: _url, ...fields } = answer.body as Line;
    expect(canonical(fields), `GET ${paths.cdr(id)} serves the listed row`).toBe(canonical(row));
  });
}

/** The recording list against its truth and `GET /v1/recordings/{call_uuid}`, row for row. */
async function checkRecordings({ sandbox, account, paths, before, seen }: Check): Promise<void> {
  const range = `from_date=${worldDays(sandbox).first}&to_date=${worldDays(sandbox).last}`;
  const { rows } = await listAllRows(sandbox, paths.recordings, range, "recordings", account.index);
  const listed = new Set(rows.map(canonical));
  for (const line of before.lines.get("recordings")!)
    expect(listed.has(canonical(line)), `truth recording ${canonical(line)} is listed`).toBe(true);
  seen.recordings += rows.length;
  await eachLimited(
    rows.filter((row) => typeof row.call_uuid === "string"),
    8,
    async (row) => {
      const answer = await platform(sandbox, paths.recording(row.call_uuid as string), {
        account: account.index,
      });
      expect(answer.status).toBe(200);
      expect(canonical(answer.body), `GET ${paths.recording(row.call_uuid as string)}`).toBe(canonical(row));
    },
  );
}

/**
 * Each transcription of the truth is its route's 200 body; a late CDR not visible yet (and not
 * about to be: a minute of margin for the wall clock) answers 404 on every route under its call.
 */
async function checkUnderCalls({ sandbox, account, paths, before, seen }: Check): Promise<void> {
  const transcriptions = before.lines.get("transcriptions")!;
  seen.transcriptions += transcriptions.length;
  await eachLimited(transcriptions, 8, async (line) => {
    const answer = await platform(sandbox, paths.transcription(line.call_uuid as string), {
      account: account.index,
    });
    expect(answer.status).toBe(200);
    expect(canonical(answer.body)).toBe(canonical(line));
  });
  const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
  const late = await ndjson(sandbox, `/_sandbox/truth/cdrs/late?account=${account.name}`);
  const hidden = late.filter((l) => Date.parse(l.visible_at as string) > Date.parse(now) + 60_000);
  seen.hiddenLate += hidden.length;
  await eachLimited(hidden, 8, async (line) => {
    const id = (line.uuid ?? line.call_id) as string;
    for (const path of [paths.cdr(id), paths.recording(id), paths.transcription(id)]) {
      const answer = await platform(sandbox, path, { account: account.index });
      expect(answer.status, `GET ${path} before its CDR is visible (${line.visible_at as string})`).toBe(404);
    }
  });
}

describe("the truth exports agree with each other and with the routes", () => {
  it("declares the references of every truth stream", () => {
    expect(Object.keys(TRUTH_REFERENCES).sort()).toEqual([...TRUTH_STREAMS].sort());
  });

  it.for(CASES)(
    "$profile, seed $world.seed (API $world.apiRevision), $clock.name",
    async ({ profile, world, clock }, { launchSandbox }) => {
      const sandbox = await launchSandbox({
        ...world,
        ...SHAPE,
        ...(clock.now === "real" ? { now: "real" } : { start: START, now: clock.now }),
        faults: { base: profile, requests: off(REQUEST_FAULTS), pages: off(PAGE_FAULTS) },
      });
      const paths = pathsOf(world.apiRevision);
      const seen: Seen = { cdrs: 0, changedCdrs: 0, recordings: 0, transcriptions: 0, hiddenLate: 0 };
      const checked = new Map<string, number>();
      for (const account of sandbox.world.accounts) {
        const truth = await readTruth(sandbox, account.name);
        const references = checkReferences(truth);
        expect(references.orphans, `${account.name}: children whose parent is not in the truth`).toEqual([]);
        for (const [name, n] of references.checked) checked.set(name, (checked.get(name) ?? 0) + n);
        const check = { sandbox, account, paths, before: truth, seen };
        await checkCdrs(check);
        await checkRecordings(check);
        await checkUnderCalls(check);
      }
      // Something of each kind was compared: the references of calls and messages, listed and
      // changed rows (under a profile that changes rows), transcriptions, hidden late CDRs.
      for (const name of ["recordings -> cdrs", "transcriptions -> cdrs", "transactions -> cdrs"])
        expect(checked.get(name) ?? 0, name).toBeGreaterThan(0);
      expect(checked.get("short_link_metrics -> messages") ?? 0).toBeGreaterThan(0);
      expect(seen.cdrs).toBeGreaterThan(500);
      expect(seen.recordings).toBeGreaterThan(50);
      expect(seen.transcriptions).toBeGreaterThan(20);
      expect(seen.hiddenLate).toBeGreaterThan(0);
      // A profile that changes rows changes some here once it is expected to change five.
      const rate = Object.values(BUILT_IN_PROFILES[profile].rows).reduce((a, b) => a + b, 0);
      if (rate * seen.cdrs >= 5) expect(seen.changedCdrs).toBeGreaterThan(0);
    },
  );
});
