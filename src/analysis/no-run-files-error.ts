import { TraceError } from "../spec/trace-error.js";

/** A directory that should hold labeling runs has no `run_*.json`. */
export class NoRunFilesError extends TraceError {
  override readonly name = "NoRunFilesError";
  constructor(readonly directory: string) {
    super(`${directory}: no run_*.json files to aggregate`, { category: "data" });
  }
}
