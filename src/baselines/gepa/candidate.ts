/** GEPA's vocabulary: a candidate (component name → text), one evaluation outcome, and the injected evaluator. */

/** A candidate: one text per component (here one per kept capability, inserted into the agent's system prompt). */
export type Candidate = Readonly<Record<string, string>>;

/** What one episode of a candidate on one instance gave: a score, a text trace and textual feedback for reflection. */
export interface EvaluationOutcome {
  /** Higher is better (a reward in [0, 1] for agent episodes). */
  score: number;
  /** What happened, as text the reflection model reads. */
  trace: string;
  /** Why the score is what it is (grader breakdown, termination), as text. */
  feedback: string;
}

/**
 * Runs a candidate on instances, one outcome per instance in order. GEPA counts every instance evaluated as one
 * episode of its budget, so the evaluator must not evaluate more than it is given.
 */
export type CandidateEvaluator<Instance> = (candidate: Candidate, instances: readonly Instance[]) => Promise<EvaluationOutcome[]>;
