import { TraceError } from "../spec/trace-error.js";

/** A run whose store holds no finished episode to analyze. */
export class NoTrajectoriesError extends TraceError {
  override readonly name = "NoTrajectoriesError";
  constructor(readonly storeFile: string) {
    super(`${storeFile}: no finished episodes to analyze`, { category: "data" });
  }
}
