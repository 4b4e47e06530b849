/** How GEPA gets a new component text: a reflection model by default, any function in tests or other setups. */
import type { Candidate, EvaluationOutcome } from "./candidate.js";
import { reflectComponent, type ReflectionModel } from "./reflect-component.js";

export interface ProposalRequest {
  candidate: Candidate;
  component: string;
  /** The candidate's outcomes on the minibatch, in minibatch order. */
  outcomes: readonly EvaluationOutcome[];
}

/** Returns the new text of `request.component`; throwing `ReflectionReplyError` skips the proposal. */
export type TextProposer = (request: ProposalRequest) => Promise<string>;

/** A proposer that asks `reflection` with `prompts/gepa/reflection.md`. */
export function reflectionProposer(reflection: ReflectionModel): TextProposer {
  return (request) => reflectComponent(reflection, request.candidate, request.component, request.outcomes);
}
