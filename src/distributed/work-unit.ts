/**
 * A work unit of a distributed load: one account's part of a `run` or `backfill` (all its selected
 * streams, the whole range) and the coordinator's settings it is loaded by, as the job queue
 * carries it. Names, dates and settings only, never a key: every worker reads the keys from its
 * own environment, as the coordinator does.
 */
import { z } from "zod";
import { carriedConfigSchema, type EtlConfig } from "../config/config.js";
import type { RunTarget } from "../pipeline/plan/select-targets.js";
import type { PipelineRequest } from "../pipeline/run/run-pipeline.js";
import { carriedConfigOf } from "./unit-config.js";

const acceptSpec = z.strictObject({
  account: z.string(),
  stream: z.string(),
  windowStart: z.string().nullable(),
});
const accepted = z.strictObject({ shrink: z.array(acceptSpec), drift: z.array(acceptSpec) });

const common = {
  accounts: z.array(z.string()).length(1),
  lockTimeoutMs: z.number().int().min(0).optional(),
  accepted: accepted.optional(),
  exactAccounts: z.literal(true),
};

const requestSchema = z.discriminatedUnion("command", [
  z.strictObject({
    command: z.literal("run"),
    streams: z.array(z.string()).optional(),
    until: z.string().optional(),
    ...common,
  }),
  z.strictObject({
    command: z.literal("backfill"),
    streams: z.array(z.string()),
    from: z.string(),
    to: z.string(),
    refetch: z.boolean().optional(),
    ...common,
  }),
]);

/** What a queued unit carries. */
export const workUnitSchema = z.strictObject({
  /** The coordinator's run (`etl.runs.id`). */
  coordinatorRunId: z.number().int().positive(),
  /** The coordinator's run start (ISO): every unit plans the same "today". */
  runStartedAt: z.string(),
  /** The schema the coordinator planned for; workers of another one never see the queue. */
  schemaVersion: z.string(),
  request: requestSchema,
  /** The coordinator's settings and the unit's account entry (see unit-config.ts): the worker loads by them. */
  config: carriedConfigSchema,
});

/** One account's work of a distributed run. */
export type WorkUnit = z.infer<typeof workUnitSchema>;

/** The units of a request: one per selected account (sub-accounts are accounts of their own). */
export function planWorkUnits(
  request: PipelineRequest,
  targets: readonly RunTarget[],
  context: { coordinatorRunId: number; runStartedAt: Date; schemaVersion: string; config: EtlConfig },
): WorkUnit[] {
  return targets.map((target) => {
    const account = target.account.name;
    // The confirmations of this unit's account only: the unit's config knows no other account.
    const own = <T extends { account: string }>(specs: readonly T[]) =>
      specs.filter((s) => s.account === account);
    const base = {
      accounts: [account],
      ...(request.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: request.lockTimeoutMs }),
      ...(request.accepted === undefined
        ? {}
        : { accepted: { shrink: own(request.accepted.shrink), drift: own(request.accepted.drift) } }),
      exactAccounts: true as const,
    };
    const unitRequest =
      request.command === "run"
        ? {
            command: "run" as const,
            ...base,
            ...(request.streams === undefined ? {} : { streams: [...request.streams] }),
            ...(request.until === undefined ? {} : { until: request.until }),
          }
        : {
            command: "backfill" as const,
            ...base,
            streams: [...request.streams],
            from: request.from,
            to: request.to,
            ...(request.refetch === true ? { refetch: true } : {}),
          };
    return {
      coordinatorRunId: context.coordinatorRunId,
      runStartedAt: context.runStartedAt.toISOString(),
      schemaVersion: context.schemaVersion,
      request: unitRequest,
      config: carriedConfigOf(context.config, target.account.subAccountOf?.account ?? account),
    };
  });
}

/** The pipeline request a worker runs for a unit. */
export function unitRequest(unit: WorkUnit, unitLockTimeoutMs: number): PipelineRequest {
  const { request } = unit;
  const lockTimeoutMs = Math.max(request.lockTimeoutMs ?? 0, unitLockTimeoutMs);
  return { ...request, lockTimeoutMs };
}
