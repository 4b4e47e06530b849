/** The train stage without GRPO orchestration (`runGrpo` in src/training) in this build. */
export class TrainingUnavailableError extends Error {
  override readonly name = "TrainingUnavailableError";
  constructor(readonly capabilities: readonly string[]) {
    super(`training not available: GRPO orchestration (runGrpo in src/training) is not in this build; cannot train ${capabilities.join(", ") || "any capability"}`);
  }
}
