/** The hand-written τ² capability environments (the four capabilities the TRACE paper trained), by capability name. */
import type { CapabilityModule } from "../../envs/modules/capability-module.js";
import multiStepCompletion from "./multi-step-completion.js";
import preconditionVerification from "./precondition-verification.js";
import structuredDataReasoning from "./structured-data-reasoning.js";
import toolCallingPrecision from "./tool-calling-precision.js";

/** Each module with its target τ² domain and its source file name (the generator's worked examples). */
export const CAPABILITY_ENVIRONMENTS: readonly { module: CapabilityModule; domain: "airline" | "retail"; file: string }[] = [
  { module: structuredDataReasoning, domain: "airline", file: "structured-data-reasoning.ts" },
  { module: toolCallingPrecision, domain: "retail", file: "tool-calling-precision.ts" },
  { module: multiStepCompletion, domain: "airline", file: "multi-step-completion.ts" },
  { module: preconditionVerification, domain: "airline", file: "precondition-verification.ts" },
];
