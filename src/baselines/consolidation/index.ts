/** Consolidation and target baselines' building blocks: mixture environments, GRPO on the target, solution transcripts (SFT itself is in `src/training/`). */
export { createCapabilityMixture, type CapabilityMixtureOptions } from "./capability-mixture.js";
export { MixedRulesError } from "./mixed-rules-error.js";
export { createMixtureEnvironment, mixtureTaskId, type MixtureEnvironment, type MixtureEnvironmentOptions, type MixtureMember } from "./mixture-environment.js";
export { solutionConversation, successfulSolutionConversations, type SolutionConversation } from "./solution-conversation.js";
export { createTargetEnvironment, runTargetGrpo, totalCapabilityIterations, type RunTargetGrpoOptions, type TargetDomainEnvironment } from "./target-grpo.js";
export { UnknownMixtureTaskError } from "./unknown-mixture-task-error.js";
