/** `RUN/compare/seed-<N>/<method>/result.json`: one method's result for one training seed; a rerun skips a method that has one. */
import { z } from "zod";
import type { Snapshot } from "./compare-setup.js";
import type { DomainScore } from "./evaluate-snapshot.js";
import type { MethodSeedResult } from "./report/comparison-types.js";

/** What `result.json` holds: the report's row plus each snapshot's scores and the method's notes. */
export interface MethodSeedRecord extends MethodSeedResult {
  snapshots: { episodes: number; policy: Snapshot["policy"]; domains: DomainScore[] }[];
  notes: string[];
}

const passCountSchema = z.looseObject({ passed: z.number(), total: z.number() });
const domainScoreSchema = z.looseObject({ domain: z.string(), passed: z.number(), total: z.number(), meanReward: z.number(), groups: z.record(z.string(), passCountSchema).optional() });

/** A snapshot's policy, checked for its kind only (its fields are the method's own). */
const policySchema = z.custom<Snapshot["policy"]>((value) => typeof value === "object" && value !== null && ["model", "routed", "prompt"].includes((value as { kind?: unknown }).kind as string), {
  message: 'expected a policy with kind "model", "routed" or "prompt"',
});

export const methodSeedRecordSchema: z.ZodType<MethodSeedRecord> = z.looseObject({
  method: z.string(),
  label: z.string(),
  group: z.enum(["baseline", "consolidation", "trace"]),
  seed: z.number().int(),
  domains: z.array(domainScoreSchema),
  budget: z.looseObject({ limit: z.number(), spent: z.number(), evaluation: z.number() }),
  curve: z.array(z.looseObject({ episodes: z.number(), score: z.number() })),
  snapshots: z.array(z.looseObject({ episodes: z.number(), policy: policySchema, domains: z.array(domainScoreSchema) })),
  notes: z.array(z.string()),
  machine: z.string().optional(),
});
