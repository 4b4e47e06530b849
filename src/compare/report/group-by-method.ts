/** Groups results by method id, methods in the order they first appear. */
import type { MethodSeedResult } from "./comparison-types.js";

/** Each method's seeds, in first-seen method order and input seed order. */
export function groupByMethod(results: readonly MethodSeedResult[]): MethodSeedResult[][] {
  const byMethod = new Map<string, MethodSeedResult[]>();
  for (const result of results) {
    const seeds = byMethod.get(result.method);
    if (seeds) seeds.push(result);
    else byMethod.set(result.method, [result]);
  }
  return [...byMethod.values()];
}
