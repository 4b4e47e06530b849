import path from "node:path";
import { TraceError } from "../spec/trace-error.js";

/** `model.path` names no checkpoint and the configuration gives no way to create one. */
export class MissingCheckpointError extends TraceError {
  override readonly name = "MissingCheckpointError";
  constructor(
    readonly directory: string,
    /** The directory a relative `model.path` was resolved against (default: the process's working directory). */
    workingDirectory = process.cwd(),
  ) {
    // A relative model.path (e.g. the shipped `models/mini-v2-base`) resolves against the working directory, so
    // running from elsewhere than the repository root is the usual cause: say so.
    const underWorkingDirectory = directory.startsWith(workingDirectory + path.sep);
    super(
      `model checkpoint ${directory} does not exist (${underWorkingDirectory ? `a relative model.path is resolved against the working directory, ${workingDirectory}; ` : ""}set model.initTiny in the configuration to create a tiny random one)`,
      { category: "usage" },
    );
  }
}
