/** Schema of τ²-bench (v0.2) `tasks.json`: tasks with a user scenario and evaluation criteria. */
import { z } from "zod";

const nullableString = z.string().nullable().optional();

const rewardTypeSchema = z.enum(["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]);
export type RewardType = z.infer<typeof rewardTypeSchema>;

const actionSchema = z.looseObject({
  action_id: z.string(),
  requestor: z.enum(["assistant", "user"]).default("assistant"),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  info: nullableString,
  compare_args: z.array(z.string()).nullable().optional(),
});
export type Tau2Action = z.infer<typeof actionSchema>;

const structuredInstructionsSchema = z.looseObject({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: nullableString,
  unknown_info: nullableString,
  task_instructions: z.string(),
});

const userScenarioSchema = z.looseObject({
  persona: nullableString,
  instructions: z.union([z.string(), structuredInstructionsSchema]),
});

const evaluationCriteriaSchema = z.looseObject({
  actions: z.array(actionSchema).nullable().optional(),
  env_assertions: z.array(z.unknown()).nullable().optional(),
  communicate_info: z.array(z.string()).nullable().optional(),
  nl_assertions: z.array(z.string()).nullable().optional(),
  reward_basis: z.array(rewardTypeSchema).default(["DB", "COMMUNICATE"]),
});

const initialStateSchema = z.looseObject({
  initialization_data: z.unknown().nullable().optional(),
  initialization_actions: z.array(z.unknown()).nullable().optional(),
  message_history: z.array(z.unknown()).nullable().optional(),
});

export const taskSchema = z.looseObject({
  id: z.string(),
  description: z.unknown().nullable().optional(),
  user_scenario: userScenarioSchema,
  initial_state: initialStateSchema.nullable().optional(),
  evaluation_criteria: evaluationCriteriaSchema.nullable().optional(),
  annotations: z.unknown().nullable().optional(),
});
export type Tau2Task = z.infer<typeof taskSchema>;

export const tasksFileSchema = z.array(taskSchema).superRefine((tasks, context) => {
  const seen = new Set<string>();
  tasks.forEach((task, index) => {
    if (seen.has(task.id)) context.addIssue({ code: "custom", path: [index, "id"], message: `duplicate task id ${task.id}` });
    seen.add(task.id);
  });
});
