/** `RUN/compare/seed-<N>/<method>/result.json`: one method's result for one training seed; a rerun skips a method that has one. */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readJsonArtifact } from "../run/json-artifact.js";
import { COMPARE_METHODS } from "./compare-methods.js";
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

/** A method's place in `COMPARE_METHODS` (names it does not know after those, by name). */
function methodOrder(method: string): number {
  const index = (COMPARE_METHODS as readonly string[]).indexOf(method);
  return index === -1 ? COMPARE_METHODS.length : index;
}

/** Every `result.json` under `compareDirectory/seed-*` (written so far), by seed, then in `COMPARE_METHODS` order. */
export function readMethodSeedRecords(compareDirectory: string): MethodSeedRecord[] {
  if (!existsSync(compareDirectory)) return [];
  return readdirSync(compareDirectory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^seed-\d+$/.test(entry.name))
    .sort((a, b) => Number(a.name.slice(5)) - Number(b.name.slice(5)))
    .flatMap((seed) =>
      readdirSync(path.join(compareDirectory, seed.name), { withFileTypes: true })
        .filter((method) => method.isDirectory() && existsSync(path.join(compareDirectory, seed.name, method.name, "result.json")))
        .sort((a, b) => methodOrder(a.name) - methodOrder(b.name) || a.name.localeCompare(b.name))
        .map((method) => readJsonArtifact(path.join(compareDirectory, seed.name, method.name, "result.json"), methodSeedRecordSchema)),
    );
}
