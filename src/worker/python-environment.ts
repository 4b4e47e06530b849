/** Where the worker's Python lives: the repository root, the interpreter to run, and the environment that imports `trace_worker`. */
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PythonInterpreterNotFoundError } from "./python-interpreter-not-found-error.js";

/** The repository root, found from this module's own path (`dist/worker/…` or `src/worker/…`). */
export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface PythonOptions {
  /** Interpreter path or command name; default TRACE_PYTHON, else `<repositoryRoot>/.venv/bin/python`. */
  python?: string;
  /** Default: this package's own root. */
  repositoryRoot?: string;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A bare command name (`python3`) is looked up on PATH; anything with a slash is a path. */
function locate(python: string, env: NodeJS.ProcessEnv): string | undefined {
  if (python.includes("/")) return isExecutable(python) ? path.resolve(python) : undefined;
  for (const directory of (env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(directory || ".", python);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The interpreter that runs the worker: the option, else TRACE_PYTHON, else the project's `.venv`. Throws when it is missing. */
export function resolvePythonInterpreter(options: PythonOptions = {}): string {
  const env = options.env ?? process.env;
  const root = options.repositoryRoot ?? repositoryRoot;
  const [python, source] =
    options.python !== undefined
      ? [options.python, "option" as const]
      : env.TRACE_PYTHON
        ? [env.TRACE_PYTHON, "TRACE_PYTHON" as const]
        : [path.join(root, ".venv", "bin", "python"), "virtual environment" as const];
  const found = locate(python, env);
  if (found === undefined) throw new PythonInterpreterNotFoundError(python, source, root);
  return found;
}

/** `env` with `<repositoryRoot>/worker` first on PYTHONPATH and unbuffered output (so logs stream as they happen). */
export function workerEnvironment(root: string = repositoryRoot, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const workerDirectory = path.join(root, "worker");
  const pythonPath = env.PYTHONPATH ? `${workerDirectory}${path.delimiter}${env.PYTHONPATH}` : workerDirectory;
  return { ...env, PYTHONPATH: pythonPath, PYTHONUNBUFFERED: "1" };
}
