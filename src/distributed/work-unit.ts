/**
 * A work unit of a distributed load: one account's part of a `run` or `backfill` (all its selected
 * streams, the whole range), as the job queue carries it. Names and dates only, never a key: every
 * worker reads the keys from its own environment, as the coordinator does.
 */
import { z } from "zod";
import type { PipelineRequest } from "../pipeline/run-pipeline.js";
import type { RunTarget } from "../pipeline/select-targets.js";

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
});

/** One account's work of a distributed run. */
export type WorkUnit = z.infer<typeof workUnitSchema>;

/** The units of a request: one per selected account (sub-accounts are accounts of their own). */
export function planWorkUnits(
  request: PipelineRequest,
  targets: readonly RunTarget[],
  context: { coordinatorRunId: number; runStartedAt: Date; schemaVersion: string },
): WorkUnit[] {
  return targets.map((target) => {
    const base = {
      accounts: [target.account.name],
      ...(request.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: request.lockTimeoutMs }),
      ...(request.accepted === undefined
        ? {}
        : { accepted: { shrink: [...request.accepted.shrink], drift: [...request.accepted.drift] } }),
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
    };
  });
}

/** The pipeline request a worker runs for a unit. */
export function unitRequest(unit: WorkUnit, unitLockTimeoutMs: number): PipelineRequest {
  const { request } = unit;
  const lockTimeoutMs = Math.max(request.lockTimeoutMs ?? 0, unitLockTimeoutMs);
  return { ...request, lockTimeoutMs };
}
