/** GEPA's seeded randomness: the capability SDK's mulberry32 generator (`next`, `int`, `pick`, `shuffle`). */
import type { ModuleSdk } from "../../envs/modules/capability-module.js";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";

export type RandomSource = ReturnType<ModuleSdk["random"]>;

/** A generator seeded with `seed`; the same seed gives the same draws. */
export function seededRandom(seed: number): RandomSource {
  return createModuleSdk().random(seed);
}

/** `count` distinct items drawn uniformly (fewer when there are fewer items). */
export function sampleWithoutReplacement<T>(items: readonly T[], count: number, random: RandomSource): T[] {
  return random.shuffle(items).slice(0, count);
}
