/** `RUN/eval/routing.json`: the routing options of a run and the decision of every routed target task. */
import { z } from "zod";
import type { RoutingDecision, RoutingOption } from "../routing/routing-option.js";

/** One task's decision. */
export type RoutedTask = RoutingDecision & { environment: string; taskId: string };

export interface RoutingFile {
  /** The options offered, in order (examples left out). */
  options: Omit<RoutingOption, "example">[];
  decisions: RoutedTask[];
  /** Routing accuracy on evaluation tasks, when the target's instances name their family (TRACE-mini). */
  accuracy?: { tasks: number; correct: number; accuracy: number; note: string; byFamily?: Record<string, { tasks: number; correct: number; accuracy: number }> };
}

const optionSchema = z.looseObject({ label: z.string(), capability: z.string().nullable(), model: z.string(), description: z.string() });

const decisionSchema = z.looseObject({
  environment: z.string(),
  taskId: z.string(),
  label: z.string(),
  capability: z.string().nullable(),
  model: z.string(),
  logprobs: z.array(z.object({ label: z.string(), logprob: z.number().nullable() })),
  source: z.enum(["label_logprobs", "top_logprobs", "retrieval"]),
});

export const routingFileSchema: z.ZodType<RoutingFile> = z.looseObject({
  options: z.array(optionSchema),
  decisions: z.array(decisionSchema),
  accuracy: z
    .object({ tasks: z.number(), correct: z.number(), accuracy: z.number(), note: z.string(), byFamily: z.record(z.string(), z.object({ tasks: z.number(), correct: z.number(), accuracy: z.number() })).optional() })
    .optional(),
});
