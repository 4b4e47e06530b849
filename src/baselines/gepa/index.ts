/** GEPA prompt optimization (Agrawal et al.) over the kept capabilities' descriptions: the loop, its parts and the agent evaluator. */
export type { Candidate, CandidateEvaluator, EvaluationOutcome } from "./candidate.js";
export { acceptsMerge, acceptsMutation } from "./acceptance-rule.js";
export { createAgentEvaluator, episodeFeedback, type AgentEvaluatorOptions } from "./agent-evaluator.js";
export { CandidatePool, type PoolEntry } from "./candidate-pool.js";
export { candidateSystemPrompt, seedCandidateFromCapabilities, withCandidatePrompt } from "./candidate-system-prompt.js";
export { EmptyDatasetError } from "./empty-dataset-error.js";
export { EmptyScoreTableError } from "./empty-score-table-error.js";
export { EvaluatorOutputError } from "./evaluator-output-error.js";
export { MergeHistory, mergeSubsample, planMerge, type MergePlan } from "./merge-proposal.js";
export { MinibatchSampler } from "./minibatch-sampler.js";
export { frontFrequencies, instanceFronts, removeDominatedCandidates, selectFromParetoFront } from "./pareto-front.js";
export { seededRandom, type RandomSource } from "./random-source.js";
export { reflectComponent, type ReflectionModel } from "./reflect-component.js";
export { extractProposedText, reflectionPromptText, REFLECTION_PROMPT_FILE } from "./reflection-prompt.js";
export { ReflectionReplyError } from "./reflection-reply-error.js";
export { runGepa, type GepaOptions, type GepaResult, type HistoryPoint, type IterationRecord, type MergeOptions } from "./run-gepa.js";
export { reflectionProposer, type ProposalRequest, type TextProposer } from "./text-proposer.js";
