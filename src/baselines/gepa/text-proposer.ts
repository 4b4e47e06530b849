/** How GEPA gets a new component text: a reflection model by default, any function in tests or other setups. */
import type { Candidate, EvaluationOutcome } from "./candidate.js";
import { reflectComponent, type ReflectionModel } from "./reflect-component.js";

export interface ProposalRequest {
  candidate: Candidate;
  component: string;
  /** The candidate's outcomes on the minibatch, in minibatch order. */
  outcomes: readonly EvaluationOutcome[];
  /** The GEPA iteration the proposal is for (each lane of a round has its own). */
  iteration: number;
}

/** Returns the new text of `request.component`; throwing `ReflectionReplyError` skips the proposal. */
export type TextProposer = (request: ProposalRequest) => Promise<string>;

/**
 * A proposer that asks `reflection` with `prompts/gepa/reflection.md`; with `seed`, iteration i's request samples with
 * seed `seed` + i, so a GEPA run on a seeded evaluator proposes the same texts run after run.
 */
export function reflectionProposer(reflection: ReflectionModel, seed?: number): TextProposer {
  return (request) => reflectComponent(seed === undefined ? reflection : { ...reflection, seed: seed + request.iteration }, request.candidate, request.component, request.outcomes);
}
