/** TRACE-mini: the tiny target world, its practice modules and the scripted expert that demonstrates it. */
export { createMiniModule, MINI_FAMILIES, type MiniFamily } from "./mini-service-module.js";
export { MINI_CAPABILITY_MODULES, MINI_MULTI_STEP_COMPLETION_BY_PART, MINI_MULTI_STEP_COMPLETION_CHECKED, MINI_MULTI_STEP_COMPLETION_COMPOSITE, MINI_PRACTICE_MODULES, MINI_PRECONDITION_VERIFICATION_HARD_STATUSES, MINI_PRECONDITION_VERIFICATION_STATE_CREDIT, MINI_TARGET_MODULE, MINI_TOOL_CALLING_PRECISION_NAMED_LATER, miniTargetModule, practiceModulesNamed } from "./mini-capability-modules.js";
export { createScriptedExpert } from "./scripted-expert.js";
export {
  DEFAULT_EXPERT_DEFICITS,
  drawExpertDeficits,
  NO_EXPERT_DEFICITS,
  resolveExpertDeficits,
  type ActiveDeficits,
  type ExpertDeficits,
} from "./expert-deficits.js";
export { ExpertDeficitRateError } from "./expert-deficit-rate-error.js";
export { parseServiceRequest, type ServicePart, type ServiceRequest } from "./parse-service-request.js";
export { attributeMiniFailure, closingReply, episodeClaims, episodeSlips, refusedCallIds, type DesignedDeficit, type EpisodeClaims, type EpisodeSlips, type FailureAttribution } from "./deficit-attribution.js";
export { countSampledIdentifiers, measureMechanics, sameAction, unseenIdentifiers, type MechanicsDemonstration, type MechanicsReport, type SampledIdentifierReport } from "./mechanics.js";
