import { TraceError } from "../spec/trace-error.js";

/** A configured capability → module mapping that names no hand-written module. */
export class UnknownEnvironmentModuleError extends TraceError {
  override readonly name = "UnknownEnvironmentModuleError";
  constructor(
    readonly capability: string,
    readonly module: string,
    readonly known: readonly string[],
  ) {
    super(`environments.map.${capability}: no hand-written module ${JSON.stringify(module)} (known: ${known.join(", ")})`, { category: "usage" });
  }
}
