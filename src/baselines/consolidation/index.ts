/** Consolidation and target baselines' building blocks: mixture environments, GRPO on the target, SFT on solution transcripts. */
export { createCapabilityMixture, type CapabilityMixtureOptions } from "./capability-mixture.js";
export { createChatTokenizeClient, type ChatTokenize } from "./chat-tokenize-client.js";
export { MixedRulesError } from "./mixed-rules-error.js";
export { createMixtureEnvironment, mixtureTaskId, type MixtureEnvironment, type MixtureEnvironmentOptions, type MixtureMember } from "./mixture-environment.js";
export { runSft, type RunSftOptions, type SftStep } from "./run-sft.js";
export { sftDatum, type SftDatum, type SftDatumOptions } from "./sft-datum.js";
export { solutionConversation, successfulSolutionConversations, type SolutionConversation } from "./solution-conversation.js";
export { createTargetEnvironment, runTargetGrpo, totalCapabilityIterations, type RunTargetGrpoOptions, type TargetDomainEnvironment } from "./target-grpo.js";
export { TemplatePrefixError } from "./template-prefix-error.js";
export { UnknownMixtureTaskError } from "./unknown-mixture-task-error.js";
