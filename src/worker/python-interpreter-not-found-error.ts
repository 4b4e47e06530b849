import { TraceError } from "../spec/trace-error.js";

/** The Python interpreter meant to run the worker does not exist; says how to create the project's virtual environment. */
export class PythonInterpreterNotFoundError extends TraceError {
  override readonly name = "PythonInterpreterNotFoundError";

  constructor(
    /** The path or command name that was looked for. */
    readonly python: string,
    /** Who named it: the caller's option, the TRACE_PYTHON variable, or the project's default `.venv`. */
    readonly source: "option" | "TRACE_PYTHON" | "virtual environment",
    readonly repositoryRoot: string,
  ) {
    const origin = source === "option" ? "given as the Python interpreter" : source === "TRACE_PYTHON" ? "named by TRACE_PYTHON" : "the project's virtual environment";
    super(
      `Python interpreter not found: ${python} (${origin}). Create the worker's environment in ${repositoryRoot} with ` +
        "`python3 -m venv .venv && .venv/bin/pip install -r worker/requirements.txt`, or set TRACE_PYTHON to an interpreter that has those packages.",
      { category: "worker" },
    );
  }

  static override isInstance(value: unknown): value is PythonInterpreterNotFoundError {
    return value instanceof Error && value.name === "PythonInterpreterNotFoundError";
  }
}
