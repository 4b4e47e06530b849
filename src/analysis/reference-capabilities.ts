/**
 * The reference labeler's fixed dictionary: general capabilities that can be checked mechanically against a task's
 * gold annotations (τ²: gold actions replayed into a gold database state, and `communicate_info`).
 */
import type { CandidateCapability } from "./candidates-file.js";

export const REFERENCE_CAPABILITIES = [
  {
    name: "complete_required_state_changes",
    description:
      "The task requires one or more state-changing operations, and the agent must carry out every one of them instead of stopping after some. " +
      "LACKING when a record that the reference solution changes is left untouched by the agent; PRESENT when the agent changes every such record; " +
      "NA when the reference solution changes nothing.",
  },
  {
    name: "correct_write_arguments",
    description:
      "When the agent changes a record the task requires changing, it must call the right tool with the right arguments (items, flights, payment method, amounts). " +
      "LACKING when a record the agent changed as required ends up different from the reference solution's; PRESENT when every such record ends up identical; " +
      "NA when the agent changes none of the required records.",
  },
  {
    name: "avoid_unrequested_state_changes",
    description:
      "The agent must not change state that the task does not call for, for example by acting on a request the policy forbids or changing the wrong record. " +
      "LACKING when the agent changes a record that the reference solution leaves unchanged; PRESENT when all its changes are ones the reference makes; " +
      "NA when the reference changes nothing and the agent attempts no state change.",
  },
  {
    name: "communicate_required_information",
    description:
      "Some tasks require telling the user specific facts or figures (a total, a refund amount, a count). " +
      "LACKING when an item the task requires is never stated in the agent's messages; PRESENT when every required item is stated; " +
      "NA when the task requires no information to be communicated.",
  },
  {
    name: "lookup_before_write",
    description:
      "Before a state-changing call the agent must look up the records it acts on, so that every identifier it passes (user, order, reservation, item, payment method) comes from an earlier tool result rather than from the user or a guess. " +
      "LACKING when a state-changing call uses an identifier no earlier tool result contained; PRESENT when all do; NA when the agent attempts no state change.",
  },
] as const satisfies readonly CandidateCapability[];

export type ReferenceCapabilityName = (typeof REFERENCE_CAPABILITIES)[number]["name"];

export const REFERENCE_CAPABILITY_NAMES: readonly ReferenceCapabilityName[] = REFERENCE_CAPABILITIES.map((capability) => capability.name);
