/** The TRACE-mini practice modules (one family each, practice wording and ids) and the target module. */
import type { CapabilityModule } from "../modules/capability-module.js";
import miniService, { createMiniModule, type MiniFamily, type MiniModuleOptions } from "./mini-service-module.js";

/** Cancel one order only when it is pending: look it up first, refuse (saying "cannot") otherwise. */
const PRECONDITION_OPTIONS: MiniModuleOptions = {
  capability: "mini_precondition_verification",
  description: "Checking an order's status before cancelling it, and refusing when the policy does not allow the cancellation.",
  families: ["precondition"],
  phrasing: "practice",
  calibrated: true,
};
const MINI_PRECONDITION_VERIFICATION: CapabilityModule = createMiniModule(PRECONDITION_OPTIONS);

/**
 * The precondition practice world that draws the statuses the base fails (twenty-first session): a quarter of the
 * orders pending, a quarter processed and half delivered, instead of half, a quarter and a quarter. Measured on the
 * shipped base in the plain world (level 2, temperature 1, 96 seeds × 16): mean reward 0.89 on pending orders (23 of 49
 * groups all 1, no GRPO signal), 0.40 on processed and 0.16 on delivered ones, where the base looks the order up,
 * leaves it and then says "is cancelled". Chosen in a run's `environments.map` in place of
 * `mini_precondition_verification`; not one of the worlds the base agent's demonstrations are played in.
 */
export const MINI_PRECONDITION_VERIFICATION_HARD_STATUSES: CapabilityModule = createMiniModule({
  ...PRECONDITION_OPTIONS,
  capability: "mini_precondition_verification_hard_statuses",
  description: `${PRECONDITION_OPTIONS.description.slice(0, -1)}, most often for delivered orders.`,
  statusShares: { pending: 0.25, processed: 0.25, delivered: 0.5 },
});

/**
 * The precondition practice world with credit for the state alone (twenty-first session, a CPU look; not in the
 * configurations): half the reward for leaving the order as the policy asks, the other half for then saying so
 * (`reward: "state-then-words"`). The base looks a delivered order up, leaves it and says "is cancelled" in about a third
 * of its episodes on one; the plain world scores those 0, as it scores cancelling the order. Chosen in a run's
 * `environments.map` in place of `mini_precondition_verification`.
 */
export const MINI_PRECONDITION_VERIFICATION_STATE_CREDIT: CapabilityModule = createMiniModule({
  ...PRECONDITION_OPTIONS,
  capability: "mini_precondition_verification_state_credit",
  description: `${PRECONDITION_OPTIONS.description.slice(0, -1)}, with credit for the right state before the right words.`,
  reward: "state-then-words",
});

/** Pay one order with the named method among look-alike payment method ids. */
const TOOL_CALLING_OPTIONS: MiniModuleOptions = {
  capability: "mini_tool_calling_precision",
  description: "Calling a write tool with exactly the right ids, picking the payment method the user names among look-alike ids.",
  families: ["payment"],
  phrasing: "practice",
  calibrated: true,
};
const MINI_TOOL_CALLING_PRECISION: CapabilityModule = createMiniModule(TOOL_CALLING_OPTIONS);

/**
 * The tool-calling practice world where the named method is never the first listed (twelfth session): in the plain
 * world the seeds naming the first-listed method are solved by the base's habit of paying with it, every sample, so
 * their groups carry no GRPO signal and push the world past the gate's all-1 limit. Chosen in a run's
 * `environments.map` in place of `mini_tool_calling_precision`; not one of the worlds the base agent's demonstrations
 * are played in.
 */
export const MINI_TOOL_CALLING_PRECISION_NAMED_LATER: CapabilityModule = createMiniModule({
  ...TOOL_CALLING_OPTIONS,
  capability: "mini_tool_calling_precision_named_later",
  description: `${TOOL_CALLING_OPTIONS.description.slice(0, -1)}, never the first one listed.`,
  namedMethodNotFirst: true,
});

/**
 * Carry out every part of a multi-part request before saying it is done: two or three cancellations, or (as the
 * target's multi-part tasks are) cancellations and payment changes mixed, in practice wording.
 */
const MULTI_STEP_OPTIONS: MiniModuleOptions = {
  capability: "mini_multi_step_completion",
  description: "Carrying out every change of a multi-part request instead of stopping after the first one.",
  families: ["multi_cancel", "composite"],
  phrasing: "practice",
  calibrated: true,
};
const MINI_MULTI_STEP_COMPLETION: CapabilityModule = createMiniModule(MULTI_STEP_OPTIONS);

/**
 * The multi-step practice world rewarded per part (`reward: "parts"`): the share of requested orders handled as asked,
 * times COMMUNICATE. Chosen in a run's `environments.map` in place of `mini_multi_step_completion`; not one of the
 * worlds the base agent's demonstrations are played in.
 */
export const MINI_MULTI_STEP_COMPLETION_BY_PART: CapabilityModule = createMiniModule({
  ...MULTI_STEP_OPTIONS,
  capability: "mini_multi_step_completion_by_part",
  description: `${MULTI_STEP_OPTIONS.description.slice(0, -1)}, rewarded for each change made.`,
  reward: "parts",
});

/**
 * The multi-step practice world of multi-part requests only (cancellations and payment changes mixed, each part with
 * its own check or exact id, as the target's composite tasks), rewarded per part and per required word
 * (`reward: "parts-and-words"`; with `"parts"` half or more of its groups were all 0 on the base): the
 * thirteenth session found the plain world's adapter completing every part of the target's composite tasks but
 * failing their parts' checks. Chosen in a run's `environments.map` in place of `mini_multi_step_completion`; not one
 * of the worlds the base agent's demonstrations are played in.
 */
export const MINI_MULTI_STEP_COMPLETION_COMPOSITE: CapabilityModule = createMiniModule({
  ...MULTI_STEP_OPTIONS,
  capability: "mini_multi_step_completion_composite",
  description: "Carrying out every part of a multi-part request, each with its own check or exact id, instead of stopping after the first one; rewarded for each part done right and each required word said.",
  families: ["composite"],
  reward: "parts-and-words",
});

/**
 * The multi-step practice world whose multi-cancellations need the status check on every order (twenty-first session):
 * each requested order is pending in half the draws, as in the target's multi-part requests, where the plain world's
 * are all pending and reward cancelling them without a lookup, the habit that cancels the target's non-pending orders
 * in multi-part tasks. Chosen in a run's `environments.map` in place of `mini_multi_step_completion`; not one of the
 * worlds the base agent's demonstrations are played in.
 */
export const MINI_MULTI_STEP_COMPLETION_CHECKED: CapabilityModule = createMiniModule({
  ...MULTI_STEP_OPTIONS,
  capability: "mini_multi_step_completion_checked",
  description: `${MULTI_STEP_OPTIONS.description.slice(0, -1)}, checking each order's status before cancelling it.`,
  multiCancelChecks: true,
});

/** The three practice modules, one per capability the target needs. */
export const MINI_CAPABILITY_MODULES: readonly CapabilityModule[] = [MINI_PRECONDITION_VERIFICATION, MINI_TOOL_CALLING_PRECISION, MINI_MULTI_STEP_COMPLETION];

/**
 * Every practice module: the three of `MINI_CAPABILITY_MODULES` and the variants a run may choose in
 * `environments.map` (per-part reward, multi-part requests only, checked multi-cancellations, named later, hard statuses, state credit).
 */
export const MINI_PRACTICE_MODULES: readonly CapabilityModule[] = [
  ...MINI_CAPABILITY_MODULES,
  MINI_MULTI_STEP_COMPLETION_BY_PART,
  MINI_MULTI_STEP_COMPLETION_COMPOSITE,
  MINI_TOOL_CALLING_PRECISION_NAMED_LATER,
  MINI_PRECONDITION_VERIFICATION_HARD_STATUSES,
  MINI_MULTI_STEP_COMPLETION_CHECKED,
  MINI_PRECONDITION_VERIFICATION_STATE_CREDIT,
];

/**
 * The practice modules a benchmark's `--modules` option names (comma-separated capabilities, variants included), or
 * the three of the configurations when it names none; throws naming the known ones when it names none of them.
 */
export function practiceModulesNamed(names: string | undefined): readonly CapabilityModule[] {
  if (names === undefined) return MINI_CAPABILITY_MODULES;
  const wanted = names.split(",");
  const modules = MINI_PRACTICE_MODULES.filter((module) => wanted.includes(module.capability));
  if (modules.length === 0) throw new Error(`${JSON.stringify(names)} names none of ${MINI_PRACTICE_MODULES.map((module) => module.capability).join(", ")}`);
  return modules;
}

/** The target world (all three families, target wording and ids). */
export const MINI_TARGET_MODULE: CapabilityModule = miniService;

/**
 * The target world over `families` (target wording and ids); `MINI_TARGET_MODULE` is the one over the first three.
 * With `composite` among them, part of the tasks need two or three capabilities at once, as most τ²-bench tasks do.
 */
export function miniTargetModule(families: readonly MiniFamily[]): CapabilityModule {
  return createMiniModule({ capability: MINI_TARGET_MODULE.capability, description: MINI_TARGET_MODULE.description, families: [...families], phrasing: "target" });
}
