/** Schemas of what a capability module returns, checked on the host side of the sandbox boundary. */
import { z } from "zod";

// Any object that is not an array. Not `z.record`: it refuses an object whose own `constructor` key is not a function
// (a state with a "constructor" field) and silently drops a "__proto__" key; the values come from `JSON.parse`, so every
// object is plain data already.
const jsonObject = z.custom<{ [key: string]: unknown }>((value) => typeof value === "object" && value !== null && !Array.isArray(value), { message: "expected a JSON object" });

/** A tool in OpenAI function form. */
const moduleToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), description: z.string(), parameters: jsonObject }),
});

/** The static fields of a module, plus the `typeof` of its three functions. */
export const moduleMetadataSchema = z.object({
  capability: z.string().regex(/^[a-z][a-z0-9_]*$/, "snake_case"),
  description: z.string().min(1),
  policy: z.string(),
  tools: z.array(moduleToolSchema).min(1),
  newTools: z.array(z.object({ name: z.string().min(1), reason: z.string().min(1) })),
  readTools: z.array(z.string()),
  difficulty: z
    .object({ levels: z.number().int().min(2).max(100), initial: z.number().int().nonnegative(), description: z.string() })
    .refine((difficulty) => difficulty.initial < difficulty.levels, { message: "initial must be one of the levels", path: ["initial"] })
    .optional(),
  functions: z.object({ generate: z.literal("function"), runTool: z.literal("function"), verify: z.literal("function") }),
});

/** `generate`'s result. */
export const moduleInstanceSchema = z.object({
  state: jsonObject,
  request: z.string().min(1),
  followUps: z.array(z.string()),
  solution: z.array(z.object({ name: z.string().min(1), arguments: jsonObject })),
  mustSay: z.array(z.string()),
  facts: jsonObject,
});

/** `runTool`'s result. */
export const toolOutcomeSchema = z.object({ output: z.string(), error: z.boolean(), state: jsonObject });

/** `verify`'s result. */
export const verdictSchema = z.object({
  reward: z.number().min(0).max(1),
  success: z.boolean(),
  breakdown: z.record(z.string(), z.number()),
});

/** Zod issues as `path: message` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`);
}
