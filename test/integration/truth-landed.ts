import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { expect } from "vitest";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
import {
  duplicateKeys,
  expectedRows,
  loadedRows,
  SAMPLE_STREAMS,
  truthRange,
  truthRecords,
} from "./pipeline-harness.js";

/** JSON with object keys sorted (jsonb does not keep the order keys were written in). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * Asserts the ground truth of a faulty run: every stream of `account` (or of each of `accounts`)
 * equals the sandbox truth from 2026-08-01 to `today`, no CDR key twice, and `etl.rejects` holds
 * exactly the rows the sandbox says it corrupted for those accounts (at least one).
 */
export async function expectTruthLandedWithRejects(
  warehouse: Warehouse,
  sandbox: RunningSandbox,
  accounts: string | readonly string[],
  today: string,
): Promise<void> {
  const rangeOf = (stream: string) => truthRange(stream, "2026-08-01", today);
  const names = typeof accounts === "string" ? [accounts] : accounts;
  const malformed: string[] = [];
  for (const account of names) {
    for (const stream of SAMPLE_STREAMS) {
      expect(await loadedRows(warehouse, stream, account), `${account}/${stream}`).toEqual(
        await expectedRows(sandbox, stream, account, rangeOf(stream)),
      );
      const records = await truthRecords(sandbox, stream, account, rangeOf(stream), "/malformed");
      for (const m of records.filter((r) => r.rejected === true))
        malformed.push(canonical([m.stream, m.direction ?? null, m.raw]));
    }
  }
  expect(await duplicateKeys(warehouse, "cdrs")).toBe(0);
  expect(malformed.length).toBeGreaterThan(0);
  const rejects = (await listRejects(warehouse.db, { limit: 100_000 }))
    .map((r) => canonical([r.stream, r.implied?.direction ?? null, r.raw]))
    .sort();
  expect(rejects).toEqual(malformed.sort());
}
