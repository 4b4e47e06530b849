/** Which tasks and sampling seeds an iteration uses, deterministically from the base seed. */
import type { Task } from "../spec/task.js";

/** mulberry32: a small seeded generator in [0, 1). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** One group of an iteration: its task and the K sampling seeds of its rollouts. */
export interface PlannedGroup {
  task: Task;
  seeds: number[];
}

/** How far apart the seeds of dynamic sampling's rounds are. */
export const ROUND_SEED_STRIDE = 1_000_003;

/**
 * Iteration `iteration` (1-based) takes the next G tasks of a fixed shuffle of the tasks (seeded by `baseSeed`,
 * wrapping around); rollout k of group g gets sampling seed `baseSeed + ((iteration − 1)·G + g)·K + k`. Round r > 0 of
 * an iteration (dynamic sampling's extra rounds) does the same with `baseSeed + r · ROUND_SEED_STRIDE`: another
 * shuffle, other sampling seeds.
 */
export function planIteration(tasks: readonly Task[], iteration: number, groups: number, samples: number, baseSeed: number, round = 0): PlannedGroup[] {
  if (tasks.length === 0) throw new RangeError("the environment has no tasks");
  if (round > 0) return planIteration(tasks, iteration, groups, samples, baseSeed + round * ROUND_SEED_STRIDE);
  const order = [...tasks];
  const random = generator(baseSeed);
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return Array.from({ length: groups }, (_, group) => {
    const slot = (iteration - 1) * groups + group;
    return { task: order[slot % order.length]!, seeds: Array.from({ length: samples }, (_, sample) => baseSeed + slot * samples + sample) };
  });
}
