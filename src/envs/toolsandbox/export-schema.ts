/**
 * The schema of ToolSandbox's scenario export (`scenarios.json.gz`, format `toolsandbox-export/1`) and of its scored
 * conversations (`grading_checks.json.gz`), validated with zod. Non-finite floats arrive as `{"$float": "inf"}` and are
 * decoded to numbers before validation (`decodeSpecialFloats`).
 */
import { z } from "zod";

/** ToolSandbox's five world databases plus the message table. */
export const DATABASE_NAMESPACES = ["SANDBOX", "SETTING", "CONTACT", "MESSAGING", "REMINDER"] as const;
export type DatabaseNamespace = (typeof DATABASE_NAMESPACES)[number];

/** The four roles of a ToolSandbox conversation. */
export const ROLE_TYPES = ["SYSTEM", "USER", "AGENT", "EXECUTION_ENVIRONMENT"] as const;
export type RoleType = (typeof ROLE_TYPES)[number];

/** One table cell: polars' String, Boolean, Int32, Float64, Enum and List(String/Enum) values. */
export type Cell = null | boolean | number | string | readonly string[];
export type Row = Record<string, Cell>;

const cellSchema: z.ZodType<Cell> = z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(z.string())]);
const rowSchema = z.record(z.string(), cellSchema);
const columnSchema = z.object({ name: z.string(), dtype: z.string() });
export type Column = z.infer<typeof columnSchema>;

/** A data frame as exported: typed columns and rows keyed by column name. */
export const frameSchema = z.object({ columns: z.array(columnSchema), rows: z.array(rowSchema) });
export type FrameData = z.infer<typeof frameSchema>;

/** A named callable of ToolSandbox (a similarity function or an extractor), possibly with data arguments. */
export interface NamedFunction {
  name: string;
  module: string;
  kwargs?: Record<string, unknown>;
}
const namedFunctionSchema: z.ZodType<NamedFunction> = z.object({
  name: z.string(),
  module: z.string(),
  kwargs: z.record(z.string(), z.unknown()).optional(),
});

const namespaceSchema = z.enum(DATABASE_NAMESPACES);
const roleSchema = z.enum(ROLE_TYPES);

export const snapshotConstraintSchema = z.object({
  database_namespace: namespaceSchema,
  similarity: namedFunctionSchema,
  reference_milestone_node_index: z.number().int().nullable(),
  target_dataframe: frameSchema.nullable(),
  column_similarity_overrides: z.record(z.string(), namedFunctionSchema),
  origin: z.string(),
});
export type SnapshotConstraintData = z.infer<typeof snapshotConstraintSchema>;

const milestoneSchema = z.object({
  index: z.number().int(),
  kind: z.string(),
  snapshot_constraints: z.array(snapshotConstraintSchema),
  guardrail_database_list: z.array(namespaceSchema).nullable(),
  guardrail_database_exclusion_list: z.array(namespaceSchema).nullable(),
});
export type MilestoneData = z.infer<typeof milestoneSchema>;

const matcherSchema = z.object({
  items: z.array(milestoneSchema),
  dag_nodes: z.array(z.number().int()),
  dag_edges: z.array(z.tuple([z.number().int(), z.number().int()])),
  is_dag: z.boolean(),
});
export type MatcherData = z.infer<typeof matcherSchema>;

/** A row of the SANDBOX (message) table. */
export const sandboxMessageSchema = z.object({
  sandbox_message_index: z.number().int(),
  sender: roleSchema.nullable(),
  recipient: roleSchema.nullable(),
  content: z.string().nullable(),
  openai_tool_call_id: z.string().nullable(),
  openai_function_name: z.string().nullable(),
  conversation_active: z.boolean().nullable(),
  tool_call_exception: z.string().nullable(),
  tool_trace: z.array(z.string()).nullable(),
  visible_to: z.array(roleSchema).nullable(),
});
export type SandboxMessage = z.infer<typeof sandboxMessageSchema>;

const databaseSnapshotSchema = z.object({
  snapshot_sandbox_message_index: z.number().int(),
  columns: z.array(columnSchema),
  rows: z.array(rowSchema),
});

const openAiToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});
export type OpenAiTool = z.infer<typeof openAiToolSchema>;

export const scenarioSchema = z.object({
  name: z.string(),
  root_scenario: z.string(),
  augmentation: z.string(),
  base_scenario: z.string().nullable(),
  categories: z.array(z.string()),
  max_messages: z.number().int(),
  starting_context: z.object({
    tool_allow_list: z.array(z.string()).nullable(),
    tool_deny_list: z.array(z.string()).nullable(),
    tool_augmentation_list: z.array(z.string()),
    trace_tool: z.boolean(),
    first_user_sandbox_message_index: z.number().int(),
    max_sandbox_message_index: z.number().int(),
    databases: z.object({ SETTING: databaseSnapshotSchema, CONTACT: databaseSnapshotSchema, MESSAGING: databaseSnapshotSchema, REMINDER: databaseSnapshotSchema }),
  }),
  messages: z.array(sandboxMessageSchema.extend({ is_user_simulator_few_shot: z.boolean() })),
  agent_tools: z.array(z.object({ agent_facing_name: z.string(), execution_name: z.string() })),
  agent_tool_schemas: z.array(openAiToolSchema),
  user_tool_schemas: z.array(openAiToolSchema),
  evaluation: z.object({ milestones: matcherSchema, minefields: matcherSchema }),
});
export type ScenarioData = z.infer<typeof scenarioSchema>;

const toolParameterSchema = z.object({ name: z.string(), annotation: z.string().nullable(), default: z.unknown() });

export const toolInfoSchema = z.object({
  registry_order: z.number().int(),
  module: z.string(),
  scrambled_name: z.string(),
  visible_to: z.array(roleSchema).nullable(),
  signature: z.array(toolParameterSchema),
  docstring: z.string().nullable(),
  needs_network: z.boolean(),
  openai_schema_by_augmentation: z.record(z.string(), openAiToolSchema),
});
export type ToolInfo = z.infer<typeof toolInfoSchema>;

export const exportSchema = z.object({
  format: z.literal("toolsandbox-export/1"),
  meta: z.object({
    source_commit: z.string(),
    frozen_now_naive_local: z.string(),
    frozen_now_posix: z.number(),
    tz_offset_hours: z.number(),
  }),
  database_schemas: z.record(namespaceSchema, z.record(z.string(), z.string())),
  default_column_similarities: z.record(namespaceSchema, z.record(z.string(), z.string())),
  user_instruction_prefix: z.string(),
  tools: z.record(z.string(), toolInfoSchema),
  scenarios: z.array(scenarioSchema),
});
export type ToolSandboxExport = z.infer<typeof exportSchema>;

/** The expected evaluation of one conversation: ToolSandbox's `EvaluationResult`. */
const expectedSchema = z.object({
  milestone_similarity: z.number(),
  minefield_similarity: z.number(),
  similarity: z.number(),
  turn_count: z.number().int(),
  milestone_mapping: z.record(z.string(), z.tuple([z.number().int(), z.number()])),
  minefield_mapping: z.record(z.string(), z.tuple([z.number().int(), z.number()])),
});
export type ExpectedEvaluation = z.infer<typeof expectedSchema>;

/** One scored conversation: the scenario, the messages appended to its start, and optionally the databases' history. */
export const gradingCheckSchema = z.object({
  scenario: z.string(),
  description: z.string().optional(),
  appended_messages: z.array(sandboxMessageSchema),
  expected: expectedSchema,
  database_history: z.record(namespaceSchema, z.array(rowSchema)).optional(),
});
export type GradingCheck = z.infer<typeof gradingCheckSchema>;

export const gradingChecksSchema = z.object({
  scripted_checks: z.array(gradingCheckSchema),
  unhelpful_agent_baseline: z.array(gradingCheckSchema).optional(),
});
export type GradingChecks = z.infer<typeof gradingChecksSchema>;

/** Replaces the export's `{"$float": "inf" | "-inf" | "nan"}` encodings with numbers, recursively. */
export function decodeSpecialFloats(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeSpecialFloats);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === "$float") {
      const text = record.$float;
      if (text === "inf") return Infinity;
      if (text === "-inf") return -Infinity;
      if (text === "nan") return NaN;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) out[key] = decodeSpecialFloats(record[key]);
    return out;
  }
  return value;
}
