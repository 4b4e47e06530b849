/** The compare stage (when the configuration has a `compare` section): `trace compare` with the configured methods and seeds. */
import { runCompare } from "../compare/run-compare.js";
import type { PipelineContext } from "./pipeline-context.js";
import type { GrpoTrainer } from "./capability-grpo.js";

export async function runCompareStage(context: PipelineContext, trainer: GrpoTrainer): Promise<string> {
  const compare = context.config.compare;
  if (compare === undefined) return "not configured (no `compare` section)";
  const written = await runCompare({ context, trainer, methods: compare.methods, seeds: compare.seeds });
  return `${compare.methods.length} methods × ${compare.seeds.length} seeds; wrote ${written.map((file) => context.run.relative(file)).join(", ")}`;
}
