/** A τ²-bench domain loaded from a directory in τ²'s layout: `tasks.json`, `db.json`, `policy.md`. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseBase, type DatabaseState } from "../core/copy-on-write-database.js";
import { DataFileError } from "../core/data-file-error.js";
import { parseJsonText, readJsonFile, validateJson } from "../core/read-json-file.js";
import { ToolKit } from "../core/tool-kit.js";
import type { Tau2Domain } from "./domain.js";
import { tasksFileSchema, type Tau2Task } from "./task-schema.js";
import { TraceError } from "../../spec/trace-error.js";

export interface Tau2DomainData<Tables extends Record<string, object> = Record<string, object>> {
  domain: Tau2Domain<Tables>;
  directory: string;
  tasks: readonly Tau2Task[];
  policy: string;
  database: DatabaseBase<Tables>;
  toolKit: ToolKit<DatabaseState<Tables>>;
}

/** A task that uses τ²-bench features this implementation does not support (e.g. initialization actions). */
export class UnsupportedTaskError extends TraceError {
  override readonly name = "UnsupportedTaskError";
  constructor(
    readonly taskId: string,
    readonly feature: string,
  ) {
    super(`task ${taskId}: ${feature} is not supported`, { category: "data" });
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataFileError(file, [code === "ENOENT" ? "file not found" : (error as Error).message], { cause: error });
  }
}

/** Loads and validates a domain's files; every problem names the file. */
export function loadTau2DomainData<Tables extends Record<string, object>>(
  domain: Tau2Domain<Tables>,
  directory: string,
  options: { tasksFile?: string } = {},
): Tau2DomainData<Tables> {
  const tasksFile = options.tasksFile ?? path.join(directory, "tasks.json");
  const tasks = readJsonFile(tasksFile, tasksFileSchema);
  for (const task of tasks) {
    const initial = task.initial_state;
    if (initial == null) continue;
    if ((initial.initialization_actions?.length ?? 0) > 0) throw new UnsupportedTaskError(task.id, "initial_state.initialization_actions");
    if (initial.initialization_data != null) throw new UnsupportedTaskError(task.id, "initial_state.initialization_data");
    if ((initial.message_history?.length ?? 0) > 0) throw new UnsupportedTaskError(task.id, "initial_state.message_history");
  }
  const databaseFile = path.join(directory, "db.json");
  const databaseText = readText(databaseFile);
  const database = new DatabaseBase<Tables>(validateJson(parseJsonText(databaseText, databaseFile), domain.databaseSchema, databaseFile));
  domain.restoreFileOrder?.(database, databaseText);
  return {
    domain,
    directory,
    tasks,
    policy: readText(path.join(directory, "policy.md")),
    database,
    toolKit: new ToolKit(domain.className, domain.tools, domain.isFloat),
  };
}
