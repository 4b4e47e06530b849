/**
 * The GEPA loop (gepa `core/engine.py` `GEPAEngine.run`, `proposer/reflective_mutation/reflective_mutation.py`,
 * `proposer/merge.py`), under a budget of evaluated episodes:
 *
 * 1. The seed candidate is evaluated on the whole validation set and becomes pool entry 0.
 * 2. Each iteration, when merging is on, a merge is due and the previous iteration added a candidate, a merge is tried
 *    first (see `merge-proposal.ts`): judged on a validation subsample against the parents' stored scores, accepted
 *    when its sum is at least the better parent's; either way the iteration ends there.
 * 3. Otherwise reflective mutation: a parent is sampled from the per-instance Pareto front, run on the iteration's
 *    training minibatch; if every score is perfect the iteration ends (`skipPerfectScore`); else the parent's next
 *    component (round robin) is rewritten by the proposer from the outcomes, the child is run on the same minibatch
 *    and kept only if its sum is strictly greater. A kept child is scored on the whole validation set and added to
 *    the pool; it schedules one merge while fewer than `maxMerges` merges were accepted.
 * 4. With `proposalsPerRound` above 1 (not in gepa), that many mutations of step 3 run at once as one round, each
 *    choosing its parent from the pool as the round found it; parent selection, components, budget checks and pool
 *    additions are taken in lane order, so the outcome does not depend on which episode finishes first.
 *
 * Every instance evaluated costs one episode, charged to the shared rollout ledger. Unlike gepa, which checks its budget between iterations and may pass
 * it, an evaluation that does not fit the remaining budget is never started: the run stops there.
 */
import { createRolloutBudget, type BudgetCategory, type RolloutBudget } from "../budget/rollout-budget.js";
import type { Candidate, CandidateEvaluator, EvaluationOutcome } from "./candidate.js";
import { acceptsMerge, acceptsMutation } from "./acceptance-rule.js";
import { CandidatePool, type PoolEntry } from "./candidate-pool.js";
import { EmptyDatasetError } from "./empty-dataset-error.js";
import { EvaluatorOutputError } from "./evaluator-output-error.js";
import { MergeHistory, mergeSubsample, planMerge } from "./merge-proposal.js";
import { MinibatchSampler } from "./minibatch-sampler.js";
import { selectFromParetoFront } from "./pareto-front.js";
import { seededRandom } from "./random-source.js";
import { ReflectionReplyError } from "./reflection-reply-error.js";
import type { TextProposer } from "./text-proposer.js";

export interface MergeOptions {
  /** Most merges accepted over the run (gepa `max_merge_invocations`, default 5). */
  maxMerges?: number;
  /** Validation instances judged per merge (default 5). */
  subsampleSize?: number;
  /** No merges on a validation set smaller than this (gepa `val_overlap_floor`, default 5). */
  minimumValidationSize?: number;
}

export interface GepaOptions<Instance> {
  seedCandidate: Candidate;
  trainingSet: readonly Instance[];
  validationSet: readonly Instance[];
  evaluate: CandidateEvaluator<Instance>;
  propose: TextProposer;
  /**
   * Episodes GEPA may evaluate in all (seed validation included): a number, or a shared rollout ledger that GEPA
   * charges (category `selection` unless `budgetCategory` says otherwise) and stops at when it is spent.
   */
  budget: number | RolloutBudget;
  /** [selection] */
  budgetCategory?: BudgetCategory;
  /** Seeds selection, minibatches and merges (default 0). */
  seed?: number;
  /** Training instances per reflective minibatch (gepa `reflection_minibatch_size`, default 3). */
  minibatchSize?: number;
  /** Score counted as perfect (default 1). */
  perfectScore?: number;
  /** Skip mutating a parent that is perfect on its whole minibatch (default true, as gepa's API). */
  skipPerfectScore?: boolean;
  /** Turns the merge proposer on. */
  merge?: MergeOptions;
  /** Stops after this many iterations even with budget left. */
  maxIterations?: number;
  /**
   * Reflective mutations run at once, each from the pool as it stood when their round began [1, gepa's sequential
   * loop]. More lanes spend the same budget in fewer rounds of waiting on episodes and reflections; a lane cannot build
   * on a candidate found in its own round.
   */
  proposalsPerRound?: number;
  /** Called after every iteration. */
  onIteration?: (record: IterationRecord) => void;
}

/** What one iteration did. */
export interface IterationRecord {
  iteration: number;
  kind: "mutation" | "merge";
  /** Pool indices of the parent(s). */
  parents: number[];
  /** The component rewritten (mutations that got that far). */
  component?: string;
  /** The parent's minibatch scores (mutation) or each parent's subsample sum (merge). */
  parentScores: number[];
  /** The child's scores on the same instances; empty when it was not evaluated. */
  childScores: number[];
  accepted: boolean;
  /** Pool index of the added candidate. */
  added?: number;
  /** Why the iteration ended early, if it did. */
  note?: string;
  /** Episodes used at the end of the iteration. */
  budgetUsed: number;
}

/** One point of the budget-vs-score curve. */
export interface HistoryPoint {
  budgetUsed: number;
  /** Best mean validation score in the pool at that point. */
  bestScore: number;
  poolSize: number;
}

export interface GepaResult {
  /** `total`: episodes GEPA could spend when it started; `used`: episodes it evaluated. */
  budget: { total: number; used: number };
  pool: PoolEntry[];
  /** Pool index of the candidate with the best mean validation score. */
  best: number;
  bestCandidate: Candidate;
  bestScore: number;
  /** A point at the seed and at every pool addition, and one at the end. */
  history: HistoryPoint[];
  iterations: IterationRecord[];
  stopReason: "budget" | "max-iterations";
}

/** One reflective mutation of a round, once its parent's minibatch is under way. */
interface Lane<Instance> {
  iteration: number;
  parent: number;
  minibatch: Instance[];
  parentOutcomes: Promise<EvaluationOutcome[]>;
}

function sum(scores: readonly number[]): number {
  return scores.reduce((total, score) => total + score, 0);
}

/** Runs GEPA until the budget (or `maxIterations`) is spent. */
export async function runGepa<Instance>(options: GepaOptions<Instance>): Promise<GepaResult> {
  const components = Object.keys(options.seedCandidate);
  if (components.length === 0) throw new EmptyDatasetError("components");
  if (options.trainingSet.length === 0) throw new EmptyDatasetError("training");
  if (options.validationSet.length === 0) throw new EmptyDatasetError("validation");
  const seed = options.seed ?? 0;
  const perfectScore = options.perfectScore ?? 1;
  const skipPerfectScore = options.skipPerfectScore ?? true;
  const merge = options.merge;
  const maxMerges = merge?.maxMerges ?? 5;
  const proposalsPerRound = options.proposalsPerRound ?? 1;
  const ledger = typeof options.budget === "number" ? createRolloutBudget({ limit: options.budget }) : options.budget;
  const category = options.budgetCategory ?? "selection";
  const startSpent = ledger.spent();
  const budget = {
    total: ledger.remaining(),
    get used() {
      return ledger.spent() - startSpent;
    },
    get remaining() {
      return ledger.remaining();
    },
    allows: (episodes: number) => episodes <= ledger.remaining(),
    charge: (episodes: number) => ledger.charge(category, episodes),
  };
  const pool = new CandidatePool(components);
  const selection = seededRandom(seed);
  const sampler = new MinibatchSampler(options.trainingSet.length, options.minibatchSize ?? 3, seededRandom(seed + 1));
  const mergeRandom = seededRandom(seed + 2);
  const mergeHistory = new MergeHistory();
  const history: HistoryPoint[] = [];
  const iterations: IterationRecord[] = [];

  const evaluate = async (candidate: Candidate, instances: readonly Instance[]): Promise<EvaluationOutcome[]> => {
    budget.charge(instances.length);
    const outcomes = await options.evaluate(candidate, instances);
    if (outcomes.length !== instances.length) throw new EvaluatorOutputError(instances.length, outcomes.length);
    return outcomes;
  };
  const recordPoint = () => history.push({ budgetUsed: budget.used, bestScore: pool.entry(pool.best()).meanScore, poolSize: pool.entries.length });
  /** Charges and starts `candidate`'s validation now; the returned function adds it to the pool once it is done. */
  const validate = (candidate: Candidate, parents: number[]): Promise<() => number> => {
    const discoveredAtBudget = budget.used;
    return evaluate(candidate, options.validationSet).then((outcomes) => () => {
      const index = pool.add({ candidate, parents, validationScores: outcomes.map((outcome) => outcome.score), discoveredAtBudget });
      recordPoint();
      return index;
    });
  };
  const addValidated = async (candidate: Candidate, parents: number[]): Promise<number> => (await validate(candidate, parents))();
  const emit = (record: Omit<IterationRecord, "budgetUsed">) => {
    const full: IterationRecord = { ...record, budgetUsed: budget.used };
    iterations.push(full);
    options.onIteration?.(full);
  };

  await addValidated(options.seedCandidate, []);
  let mergesDue = 0;
  let mergesAccepted = 0;
  let lastIterationAdded = false;
  let stopReason: GepaResult["stopReason"] = "budget";
  let iteration = 0;
  while (budget.remaining > 0) {
    if (options.maxIterations !== undefined && iteration >= options.maxIterations) {
      stopReason = "max-iterations";
      break;
    }
    const finish = (record: Omit<IterationRecord, "iteration" | "budgetUsed">) => {
      emit({ iteration, ...record });
      iteration += 1;
    };

    if (merge !== undefined && mergesDue > 0 && lastIterationAdded) {
      lastIterationAdded = false;
      const plan = options.validationSet.length >= (merge.minimumValidationSize ?? 5) ? planMerge(pool, mergeHistory, mergeRandom) : undefined;
      if (plan !== undefined) {
        const [first, second] = plan.parents;
        mergeHistory.triplets.add(`${first},${second},${plan.ancestor}`);
        const subsample = mergeSubsample(pool.entry(first).validationScores, pool.entry(second).validationScores, mergeRandom, merge.subsampleSize ?? 5);
        const parentSums = plan.parents.map((parent) => sum(subsample.map((index) => pool.entry(parent).validationScores[index] ?? 0)));
        if (!budget.allows(subsample.length)) break;
        const mergedScores = (await evaluate(plan.candidate, subsample.map((index) => options.validationSet[index] as Instance))).map((outcome) => outcome.score);
        const parentTable = plan.parents.map((parent) => subsample.map((index) => pool.entry(parent).validationScores[index] ?? 0));
        if (!acceptsMerge(parentTable, mergedScores)) {
          finish({ kind: "merge", parents: [...plan.parents], parentScores: parentSums, childScores: mergedScores, accepted: false });
          continue;
        }
        if (!budget.allows(options.validationSet.length)) {
          finish({ kind: "merge", parents: [...plan.parents], parentScores: parentSums, childScores: mergedScores, accepted: true, note: "no budget left for validation" });
          break;
        }
        const added = await addValidated(plan.candidate, [...plan.parents]);
        mergesDue -= 1;
        mergesAccepted += 1;
        finish({ kind: "merge", parents: [...plan.parents], parentScores: parentSums, childScores: mergedScores, accepted: true, added });
        continue;
      }
    }
    lastIterationAdded = false;

    // A round of reflective mutations: `proposalsPerRound` lanes, all choosing their parent from the pool as it stands
    // at the round's start. Each step runs the lanes at once and every decision that touches shared state (parent
    // selection, the round-robin component, the budget, pool additions) is taken in lane order, so a run is as
    // deterministic as its evaluator. One lane is gepa's sequential loop.
    const laneCount = Math.min(proposalsPerRound, options.maxIterations === undefined ? proposalsPerRound : options.maxIterations - iteration);
    const lanes: Lane<Instance>[] = [];
    let childrenReserved = 0;
    for (let lane = 0; lane < laneCount; lane += 1) {
      const minibatch = sampler.next(iteration + lane).map((index) => options.trainingSet[index] as Instance);
      // The first lane needs room for its parent's minibatch (as gepa's loop); a further lane only starts when its
      // parent's and child's minibatches fit beside the children of the lanes before it.
      if (!budget.allows(lane === 0 ? minibatch.length : childrenReserved + 2 * minibatch.length)) break;
      childrenReserved += minibatch.length;
      const parent = selectFromParetoFront(pool.scoreTable(), pool.meanScores(), selection);
      lanes.push({ iteration: iteration + lane, parent, minibatch, parentOutcomes: evaluate(pool.entry(parent).candidate, minibatch) });
    }
    if (lanes.length === 0) break;
    // A refusal within the round stops every later evaluation of it (in lane order) and the run, as gepa's loop stops
    // at its first refusal.
    let stop = false;
    const records: Omit<IterationRecord, "budgetUsed">[] = [];
    const parentResults = await Promise.all(lanes.map((lane) => lane.parentOutcomes));
    const proposals = lanes.map((lane, index) => {
      const parentOutcomes = parentResults[index] as EvaluationOutcome[];
      const parentScores = parentOutcomes.map((outcome) => outcome.score);
      const base = { iteration: lane.iteration, kind: "mutation" as const, parents: [lane.parent], parentScores };
      if (skipPerfectScore && parentScores.every((score) => score >= perfectScore)) {
        records[index] = { ...base, childScores: [], accepted: false, note: "parent perfect on the minibatch" };
        return undefined;
      }
      const component = pool.takeNextComponent(lane.parent);
      const parentCandidate = pool.entry(lane.parent).candidate;
      return {
        base: { ...base, component },
        text: options.propose({ candidate: parentCandidate, component, outcomes: parentOutcomes, iteration: lane.iteration }).then(
          (text): Candidate => ({ ...parentCandidate, [component]: text }),
          (error: unknown) => {
            if (!(error instanceof ReflectionReplyError)) throw error;
            return error;
          },
        ),
      };
    });
    const children = await Promise.all(proposals.map((proposal) => proposal?.text ?? Promise.resolve(undefined)));
    const childRuns = proposals.map((proposal, index): Promise<EvaluationOutcome[] | undefined> => {
      const child = children[index];
      if (proposal === undefined || child === undefined) return Promise.resolve(undefined);
      if (child instanceof ReflectionReplyError) {
        records[index] = { ...proposal.base, childScores: [], accepted: false, note: child.message };
        return Promise.resolve(undefined);
      }
      const minibatch = (lanes[index] as Lane<Instance>).minibatch;
      if (stop || !budget.allows(minibatch.length)) {
        records[index] = { ...proposal.base, childScores: [], accepted: false, note: "no budget left for the child's minibatch" };
        stop = true;
        return Promise.resolve(undefined);
      }
      return evaluate(child, minibatch);
    });
    const childResults = await Promise.all(childRuns);
    const validations = childResults.map((outcomes, index): Promise<(() => number) | undefined> => {
      const proposal = proposals[index];
      if (proposal === undefined || outcomes === undefined) return Promise.resolve(undefined);
      const childScores = outcomes.map((outcome) => outcome.score);
      if (!acceptsMutation(proposal.base.parentScores, childScores)) {
        records[index] = { ...proposal.base, childScores, accepted: false };
        return Promise.resolve(undefined);
      }
      if (stop || !budget.allows(options.validationSet.length)) {
        records[index] = { ...proposal.base, childScores, accepted: true, note: "no budget left for validation" };
        stop = true;
        return Promise.resolve(undefined);
      }
      records[index] = { ...proposal.base, childScores, accepted: true };
      return validate(children[index] as Candidate, [...proposal.base.parents]);
    });
    const validated = await Promise.all(validations);
    validated.forEach((add, index) => {
      if (add === undefined) return;
      (records[index] as Omit<IterationRecord, "budgetUsed">).added = add();
      lastIterationAdded = true;
      if (merge !== undefined && mergesAccepted < maxMerges) mergesDue += 1;
    });
    records.forEach(emit);
    iteration += lanes.length;
    if (stop) break;
  }
  if (history.at(-1)?.budgetUsed !== budget.used) recordPoint();
  const best = pool.best();
  return {
    budget: { total: budget.total, used: budget.used },
    pool: pool.entries,
    best,
    bestCandidate: pool.entry(best).candidate,
    bestScore: pool.entry(best).meanScore,
    history,
    iterations,
    stopReason,
  };
}
