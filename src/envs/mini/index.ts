/** TRACE-mini: the tiny target world, its practice modules and the scripted expert that demonstrates it. */
export { createMiniModule } from "./mini-service-module.js";
export { MINI_CAPABILITY_MODULES, MINI_TARGET_MODULE } from "./mini-capability-modules.js";
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
export { parseServiceRequest, type ServiceRequest } from "./parse-service-request.js";
