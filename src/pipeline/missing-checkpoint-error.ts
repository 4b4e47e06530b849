import { TraceError } from "../spec/trace-error.js";

/** A configured model checkpoint that does not exist and that the configuration does not ask to create (`model.initTiny`). */
export class MissingCheckpointError extends TraceError {
  override readonly name = "MissingCheckpointError";
  constructor(readonly directory: string) {
    super(`model checkpoint ${directory} does not exist (set model.initTiny in the configuration to create a tiny random one)`, { category: "usage" });
  }
}
