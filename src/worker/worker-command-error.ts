import { TraceError } from "../spec/trace-error.js";

/** A `python -m trace_worker …` command (other than `serve`) that failed; carries its exit status and stderr tail. */
export class WorkerCommandError extends TraceError {
  override readonly name = "WorkerCommandError";

  constructor(
    /** The command line that was run. */
    readonly command: readonly string[],
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    /** The last lines the command wrote to stderr. */
    readonly stderrTail: string,
  ) {
    const status = signal === null ? `exit code ${exitCode}` : `signal ${signal}`;
    const lastLine = stderrTail.trimEnd().split("\n").at(-1) ?? "";
    super(`${command.slice(1).join(" ")} failed (${status})${lastLine === "" ? "" : `: ${lastLine}`}`, { category: "worker" });
  }

  static override isInstance(value: unknown): value is WorkerCommandError {
    return value instanceof Error && value.name === "WorkerCommandError";
  }
}
