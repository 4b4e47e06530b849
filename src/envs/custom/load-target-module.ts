/**
 * Loads a user's target module by path (TypeScript through tsx, JavaScript as is) and checks it against the
 * `TargetModule` interface: the exports' shape, every tool's schema (compiled with Ajv), unique tool names and task
 * ids. Every problem is one `TargetModuleError` naming the module file and the field.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { z } from "zod";
import type { GradeInput, TargetModule, TargetTask, TargetTool } from "./target-module.js";
import { TraceError } from "../../spec/trace-error.js";

/** A target module (or MCP target) that cannot be used: names the source, the field and the problem. */
export class TargetModuleError extends TraceError {
  override readonly name = "TargetModuleError";
  constructor(
    readonly source: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`target ${source}: ${field === "" ? "" : `${field}: `}${problem}`, { category: "target" });
  }
}

const namePattern = /^[A-Za-z0-9._-]+$/;

const toolSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, '_' and '-' only (at most 64), as OpenAI tool names"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  kind: z.enum(["read", "write"]).optional(),
});

/** A target task's JSON shape (also the line format of an MCP target's tasks file). */
const targetTaskSchema = z.strictObject({
  id: z.string().min(1),
  instructions: z.string().min(1),
  userMessages: z.array(z.string().min(1)).min(1).optional(),
  persona: z.string().optional(),
  split: z.enum(["train", "test"]).optional(),
  rubric: z.string().optional(),
  data: z.unknown().optional(),
});

const fn = (message = "must be a function") => z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", { message });

const moduleSchema = z.object({
  name: z.string().regex(namePattern, "letters, digits, '.', '_' and '-' only"),
  policy: z.string().optional(),
  systemPrompt: z.string().optional(),
  tools: z.array(toolSchema).min(1, "at least one tool"),
  tasks: z.union([z.array(z.unknown()), fn()], { error: "must be a list of tasks or a function returning one" }),
  rules: z
    .strictObject({
      greeting: z.string().nullable().optional(),
      userStopTokens: z.array(z.string().min(1)).optional(),
      agentStopToken: z.string().min(1).nullable().optional(),
      maxErrors: z.number().int().positive().optional(),
    })
    .optional(),
  createState: fn().optional(),
  runTool: fn("must be a function (call) => result"),
  grade: fn("must be a function (input) => reward"),
  disposeState: fn().optional(),
});

function firstIssue(source: string, error: z.ZodError, prefix = ""): TargetModuleError {
  const issue = error.issues[0]!;
  const field = [prefix, ...issue.path.map(String)].filter((part) => part !== "").join(".");
  return new TargetModuleError(source, field, issue.message);
}

/** Checks the tools: shape, unique names, and parameters that are a JSON Schema of an object. */
export function checkTargetTools(source: string, tools: readonly TargetTool[]): void {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const field = `tools[${index}] (${tool.name})`;
    if (seen.has(tool.name)) throw new TargetModuleError(source, field, "duplicate tool name");
    seen.add(tool.name);
    if (tool.parameters.type !== "object") throw new TargetModuleError(source, `${field}.parameters.type`, `must be "object", got ${JSON.stringify(tool.parameters.type)}`);
    try {
      ajv.compile(tool.parameters);
    } catch (error) {
      throw new TargetModuleError(source, `${field}.parameters`, `not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** Checks tasks: each against the task shape, ids unique. */
function checkTargetTasks(source: string, tasks: readonly unknown[]): TargetTask[] {
  if (tasks.length === 0) throw new TargetModuleError(source, "tasks", "no tasks");
  const ids = new Set<string>();
  return tasks.map((value, index) => {
    const parsed = targetTaskSchema.safeParse(value);
    if (!parsed.success) throw firstIssue(source, parsed.error, `tasks[${index}]`);
    if (ids.has(parsed.data.id)) throw new TargetModuleError(source, `tasks[${index}].id`, `duplicate task id ${JSON.stringify(parsed.data.id)}`);
    ids.add(parsed.data.id);
    return parsed.data;
  });
}

/** A checked module, its tasks resolved. */
export interface LoadedTargetModule {
  module: TargetModule;
  tasks: TargetTask[];
}

/** Checks a module object (already imported) against the interface. */
async function checkTargetModule(source: string, value: unknown): Promise<LoadedTargetModule> {
  const parsed = moduleSchema.safeParse(value);
  if (!parsed.success) throw firstIssue(source, parsed.error);
  const module = value as TargetModule;
  checkTargetTools(source, module.tools);
  let tasks: unknown;
  try {
    tasks = typeof module.tasks === "function" ? await module.tasks() : module.tasks;
  } catch (error) {
    throw new TargetModuleError(source, "tasks()", `threw ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(tasks)) throw new TargetModuleError(source, "tasks()", "must return a list of tasks");
  return { module, tasks: checkTargetTasks(source, tasks) };
}

/** Imports a module file (`.ts`/`.mts` through tsx, `.js`/`.mjs` directly) and checks it; its default export, or its named exports, is the target. */
export async function loadTargetModule(file: string): Promise<LoadedTargetModule> {
  return checkTargetModule(file, exportedTarget(await importUserFile(file)));
}

/** The default export, through tsx's CommonJS interop layers (`{default: {default: …}}`) until one has `field`. */
function defaultExport(imported: Record<string, unknown>, field: string): unknown {
  let value: unknown = imported.default;
  for (let depth = 0; depth < 3 && typeof value === "object" && value !== null && "default" in value && !(field in value); depth += 1) value = (value).default;
  return value;
}

/** The default export when it is an object, else the named exports. */
function exportedTarget(imported: Record<string, unknown>): unknown {
  const value = defaultExport(imported, "tools");
  return typeof value === "object" && value !== null ? value : imported;
}

/** Imports a user file: `.ts`/`.mts`/`.cts` through tsx, JavaScript directly. */
async function importUserFile(file: string): Promise<Record<string, unknown>> {
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) throw new TargetModuleError(file, "", "no such file");
  try {
    if (/\.[cm]?ts$/.test(absolute)) {
      const { tsImport } = await import("tsx/esm/api");
      return (await tsImport(pathToFileURL(absolute).href, import.meta.url)) as Record<string, unknown>;
    }
    return (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new TargetModuleError(file, "", `cannot be imported: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}

/** Reads a tasks file: a JSON list of tasks, or JSON lines with one task each. */
export function readTargetTasksFile(file: string): TargetTask[] {
  if (!existsSync(file)) throw new TargetModuleError(file, "", "no such tasks file");
  const text = readFileSync(file, "utf8");
  let values: unknown[];
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      values = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      throw new TargetModuleError(file, "", `not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else {
    values = [];
    for (const [index, line] of text.split("\n").entries()) {
      if (line.trim() === "") continue;
      try {
        values.push(JSON.parse(line));
      } catch (error) {
        throw new TargetModuleError(file, `line ${index + 1}`, `not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return checkTargetTasks(file, values);
}

/** A grader module's `grade` function: its default export (a function, or an object with `grade`) or a named `grade`. */
export async function loadGraderModule(file: string): Promise<(input: GradeInput) => unknown> {
  const imported = await importUserFile(file);
  const value = defaultExport(imported, "grade");
  const grade = typeof value === "function" ? value : typeof value === "object" && value !== null && typeof (value as { grade?: unknown }).grade === "function" ? (value as { grade: unknown }).grade : imported.grade;
  if (typeof grade !== "function") throw new TargetModuleError(file, "grade", "the grader module exports no grade function (default export or `grade`)");
  return grade as (input: GradeInput) => unknown;
}
