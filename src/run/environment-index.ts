/**
 * `RUN/environments/index.json`: which capability environment serves each kept capability, and which kept ones have
 * none (skipped, with the reason); `RUN/environments/<capability>/environment.json` holds one entry.
 */
import { z } from "zod";

/** The calibration statistics of a generated module on the base policy. */
export interface CalibrationStatistics {
  meanReward: number;
  successRate: number;
  rewardStd: number;
  allZeroFraction: number;
  allOneFraction: number;
  seeds: number;
  samples: number;
}

/** One kept capability with its environment. */
export interface CapabilityEnvironmentEntry {
  /** The kept capability (analysis's name). */
  capability: string;
  /** Analysis's description of it. */
  description: string;
  /** `hand-written`: the module's capability name; `generated`: the module file, relative to the run directory. */
  module: string;
  source: "hand-written" | "generated";
  /** Ground-truth reward per validation seed. */
  validation: { seed: number; reward: number }[];
  /** The calibration statistics of the kept module on the base policy (generated modules; hand-written ones when calibrated). */
  calibration?: CalibrationStatistics;
  /** The difficulty level calibration chose, for a module with levels: every stage generates its worlds at it. */
  difficulty?: number;
}

/** A kept capability that gets no environment, and why. */
export interface SkippedCapability {
  capability: string;
  reason: string;
}

export interface EnvironmentIndex {
  environments: CapabilityEnvironmentEntry[];
  /** Kept capabilities without a usable environment (reported, never trained). */
  skipped: SkippedCapability[];
}

export const calibrationStatisticsSchema: z.ZodType<CalibrationStatistics> = z.looseObject({
  meanReward: z.number(),
  successRate: z.number(),
  rewardStd: z.number(),
  allZeroFraction: z.number(),
  allOneFraction: z.number(),
  seeds: z.number(),
  samples: z.number(),
});

export const capabilityEnvironmentEntrySchema: z.ZodType<CapabilityEnvironmentEntry> = z.looseObject({
  capability: z.string().min(1),
  description: z.string(),
  module: z.string().min(1),
  source: z.enum(["hand-written", "generated"]),
  validation: z.array(z.object({ seed: z.number(), reward: z.number() })),
  calibration: calibrationStatisticsSchema.optional(),
  difficulty: z.number().int().nonnegative().optional(),
});

const skippedCapabilitySchema = z.object({ capability: z.string(), reason: z.string() });

/** The index; runs written before `skipped` existed recorded the unmapped capabilities only (`unmapped`). */
export const environmentIndexSchema: z.ZodType<EnvironmentIndex, unknown> = z
  .looseObject({
    environments: z.array(capabilityEnvironmentEntrySchema).default([]),
    skipped: z.array(skippedCapabilitySchema).optional(),
    unmapped: z.array(z.string()).optional(),
  })
  .transform(({ environments, skipped, unmapped }) => ({
    environments,
    skipped: skipped ?? (unmapped ?? []).map((capability) => ({ capability, reason: "no environment configured (environments.map)" })),
  }));
