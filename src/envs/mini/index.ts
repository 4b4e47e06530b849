/** TRACE-mini: the tiny target world, its practice modules and the scripted expert that demonstrates it. */
export { createMiniModule, type MiniFamily, type MiniModuleOptions, type MiniPhrasing } from "./mini-service-module.js";
export {
  MINI_CAPABILITY_MODULES,
  MINI_MULTI_STEP_COMPLETION,
  MINI_PRECONDITION_VERIFICATION,
  MINI_SINGLE_FAMILIES,
  MINI_TARGET_MODULE,
  MINI_TOOL_CALLING_PRECISION,
  miniTargetModule,
} from "./mini-capability-modules.js";
export { createScriptedExpert, nextExpertAction, type ExpertAction, type ScriptedExpertOptions } from "./scripted-expert.js";
export {
  DEFAULT_EXPERT_DEFICITS,
  drawExpertDeficits,
  EXPERT_DEFICIT_NAMES,
  NO_EXPERT_DEFICITS,
  resolveExpertDeficits,
  type ActiveDeficits,
  type DrawExpertDeficitsOptions,
  type ExpertDeficits,
} from "./expert-deficits.js";
export { ExpertDeficitRateError } from "./expert-deficit-rate-error.js";
export { parseServiceRequest, type ServicePart, type ServiceRequest } from "./parse-service-request.js";
export { attributeMiniFailure, type DesignedDeficit, type FailureAttribution } from "./deficit-attribution.js";
export { measureMechanics, type MechanicsDemonstration, type MechanicsReport } from "./mechanics.js";
