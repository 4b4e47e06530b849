import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import type { Message } from "../../spec/message.js";
import type { Candidate, EvaluationOutcome } from "./candidate.js";
import { BudgetExceededError } from "../budget/budget-exceeded-error.js";
import { createRolloutBudget } from "../budget/rollout-budget.js";
import { runGepa } from "./run-gepa.js";
import { reflectionProposer, type TextProposer } from "./text-proposer.js";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

/**
 * A deterministic evaluator: instance k scores 1 when some component's text contains `rule-(k mod 3)`; its feedback
 * names the missing rule. Every instance it is given is logged, so the test can count episodes independently.
 */
function ruleEvaluator(log: number[][]) {
  return (candidate: Candidate, instances: readonly number[]): Promise<EvaluationOutcome[]> => {
    log.push([...instances]);
    const text = Object.values(candidate).join("\n");
    return Promise.resolve(
      instances.map((instance) => {
        const rule = `rule-${instance % 3}`;
        const score = text.includes(rule) ? 1 : 0;
        return { score, trace: `task ${instance}: the agent answered`, feedback: score === 1 ? "correct" : `missing ${rule}` };
      }),
    );
  };
}

/** Adds the first missing rule named in the feedback to the component's text. */
const addMissingRule: TextProposer = ({ candidate, component, outcomes }) => {
  const missing = outcomes.map((outcome) => /missing (rule-\d)/.exec(outcome.feedback)?.[1]).find((rule) => rule !== undefined);
  return Promise.resolve(`${candidate[component] ?? ""} ${missing ?? ""}`.trim());
};

test("every evaluated instance is counted and the run stops exactly at the budget", async () => {
  const log: number[][] = [];
  const result = await runGepa({
    seedCandidate: { tool_use: "Use tools." },
    trainingSet: [0, 1, 2, 3, 4, 5],
    validationSet: [0, 1, 2, 3],
    evaluate: ruleEvaluator(log),
    propose: addMissingRule,
    budget: 20,
  });
  // Seed validation 4; iteration 0: parent 3 + child 3 + validation 4 = 14; iteration 1: parent 3 + child 3 = 20,
  // then the accepted child's validation (4) no longer fits and the run stops.
  assert.deepEqual(log.map((batch) => batch.length), [4, 3, 3, 4, 3, 3]);
  assert.equal(result.budget.used, 20);
  assert.deepEqual(result.budget, { total: 20, used: log.flat().length });
  assert.equal(result.stopReason, "budget");
  assert.deepEqual(result.iterations.map((record) => [record.accepted, record.added, record.budgetUsed, record.note]), [
    [true, 1, 14, undefined],
    [true, undefined, 20, "no budget left for validation"],
  ]);
  assert.deepEqual(result.history.map((point) => point.budgetUsed), [4, 14, 20]);
  assert.deepEqual(result.pool.map((entry) => entry.discoveredAtBudget), [0, 10]);
});

test("an evaluation that does not fit is never started; a budget below the validation set is refused", async () => {
  const log: number[][] = [];
  const options = { seedCandidate: { tool_use: "" }, trainingSet: [0, 1, 2], validationSet: [0, 1, 2, 3], evaluate: ruleEvaluator(log), propose: addMissingRule };
  const result = await runGepa({ ...options, budget: 6 });
  assert.deepEqual([result.budget.used, log.flat().length, result.iterations.length], [4, 4, 0]);
  await assert.rejects(runGepa({ ...options, budget: 3 }), (error: BudgetExceededError) => error instanceof BudgetExceededError && error.requested === 4 && error.limit - error.spent === 3);
});

test("a full small run with a scripted reflection model accepts improvements and records the budget curve", async () => {
  const prompts: string[] = [];
  const seeds: unknown[] = [];
  const server = await startFakeChatServer((request, res) => {
    const prompt = (request.body.messages as Message[])[0]!.content!;
    prompts.push(prompt);
    seeds.push(request.body.seed);
    const current = /```\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? "";
    const missing = /missing (rule-\d)/.exec(prompt)?.[1] ?? "";
    sendJson(res, 200, chatBody({ content: `Here is the new text:\n\`\`\`text\n${current} Always apply ${missing}.\n\`\`\`` }));
  });
  closers.push(() => server.close());
  const client = createChatClient({ baseUrl: server.baseUrl, model: "reflection", maxRetries: 0, retryBaseMs: 1 });
  const log: number[][] = [];
  const result = await runGepa({
    seedCandidate: { precondition_verification: "Check before acting.", communicate_required_information: "Tell the user the result." },
    trainingSet: [0, 1, 2, 3, 4, 5, 6, 7, 8],
    validationSet: [0, 1, 2, 3, 4, 5],
    evaluate: ruleEvaluator(log),
    propose: reflectionProposer({ client, temperature: 0 }, 500),
    budget: 80,
    seed: 3,
    merge: { maxMerges: 2 },
  });
  assert.equal(result.pool[0]!.meanScore, 0);
  assert.ok(result.iterations.some((record) => record.kind === "mutation" && record.accepted && record.added !== undefined));
  assert.ok(result.bestScore > result.pool[0]!.meanScore, JSON.stringify(result.history));
  assert.match(Object.values(result.bestCandidate).join(" "), /Always apply rule-\d\./);
  assert.ok(result.budget.used <= 80);
  assert.equal(result.budget.used, log.flat().length);
  // The curve never goes down and ends at the budget used.
  assert.ok(result.history.every((point, index) => index === 0 || point.bestScore >= result.history[index - 1]!.bestScore));
  assert.equal(result.history.at(-1)!.budgetUsed, result.budget.used);
  // The reflection prompt shows the component's name, its current text and the feedback.
  assert.match(prompts[0]!, /`precondition_verification`/);
  assert.match(prompts[0]!, /Check before acting\./);
  assert.match(prompts[0]!, /missing rule-\d/);
  // Each reflection samples with 500 + its iteration: one request per mutation that asked for a proposal.
  const proposed = result.iterations.filter((record) => record.kind === "mutation" && record.component !== undefined).map((record) => 500 + record.iteration);
  assert.deepEqual([...seeds].sort(), proposed.sort());
  assert.equal(new Set(seeds).size, seeds.length);
  // Every accepted mutation improved its minibatch strictly; every accepted merge matched the better parent.
  for (const record of result.iterations.filter((entry) => entry.accepted)) {
    const child = record.childScores.reduce((total, score) => total + score, 0);
    const parent = record.kind === "mutation" ? record.parentScores.reduce((total, score) => total + score, 0) : Math.max(...record.parentScores);
    assert.ok(record.kind === "mutation" ? child > parent : child >= parent, JSON.stringify(record));
  }
});

test("with a shared rollout ledger GEPA charges its evaluations as selection and stops where the ledger is spent", async () => {
  const log: number[][] = [];
  const ledger = createRolloutBudget({ limit: 30 });
  ledger.charge("training", 10);
  const result = await runGepa({ seedCandidate: { tool_use: "" }, trainingSet: [0, 1, 2], validationSet: [0, 1, 2, 3], evaluate: ruleEvaluator(log), propose: addMissingRule, budget: ledger });
  assert.equal(result.budget.total, 20);
  assert.equal(result.budget.used, log.flat().length);
  assert.deepEqual(ledger.summary().byCategory, { training: 10, calibration: 0, selection: result.budget.used });
  assert.ok(ledger.remaining() < 3, `stopped with ${ledger.remaining()} episodes left, less than a minibatch`);
});

test("proposals of a round run at once, take every shared decision in lane order, and keep to the budget", async () => {
  const run = async (laterFinishFirst: boolean) => {
    const log: number[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const rules = ruleEvaluator(log);
    const evaluate = async (candidate: Candidate, instances: readonly number[]) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Calls of a round finish in start order in one run and in reverse order in the other.
      const rank = Math.min(inFlight, 9);
      await new Promise((resolve) => setTimeout(resolve, laterFinishFirst ? 30 - 3 * rank : 3 * rank));
      inFlight -= 1;
      return rules(candidate, instances);
    };
    const result = await runGepa({
      seedCandidate: { tool_use: "Use tools.", answers: "" },
      trainingSet: [0, 1, 2, 3, 4, 5, 6, 7, 8],
      validationSet: [0, 1, 2, 3],
      evaluate,
      propose: addMissingRule,
      budget: 57,
      seed: 5,
      proposalsPerRound: 3,
    });
    return { result, log, mostInFlight };
  };
  const first = await run(true);
  const second = await run(false);
  const { result, log } = first;
  assert.equal(first.mostInFlight, 3);
  // Round 1: the seed's validation (4), three parents' minibatches (3 each), then three children's (3 each).
  assert.deepEqual(log.slice(0, 7).map((batch) => batch.length), [4, 3, 3, 3, 3, 3, 3]);
  assert.deepEqual(result.iterations.map((record) => record.iteration), result.iterations.map((_, index) => index));
  assert.ok(result.iterations.filter((record) => record.iteration < 3).every((record) => record.parents[0] === 0), "the first round's lanes all start from the seed");
  assert.ok(result.iterations.some((record) => record.added !== undefined && record.iteration < 3));
  assert.ok(result.budget.used <= 57);
  assert.equal(result.budget.used, log.flat().length);
  assert.ok(result.bestScore > result.pool[0]!.meanScore);
  // The same run with its evaluations finishing in the other order gives the same pool and records.
  assert.deepEqual(second.result.iterations, result.iterations);
  assert.deepEqual(second.result.pool, result.pool);
});

test("a round starts no further lane whose child's minibatch could not fit", async () => {
  const log: number[][] = [];
  // Seed validation 4, then 14 left: lane 0 (parent 3 + child 3) and lane 1 (3 + 3) fit in 12; a third lane would
  // need 18 and does not start.
  const result = await runGepa({ seedCandidate: { tool_use: "" }, trainingSet: [0, 1, 2, 3, 4, 5], validationSet: [0, 1, 2, 3], evaluate: ruleEvaluator(log), propose: addMissingRule, budget: 18, proposalsPerRound: 3 });
  assert.deepEqual(log.slice(0, 3).map((batch) => batch.length), [4, 3, 3]);
  assert.equal(result.iterations.filter((record) => record.iteration === 0 || record.iteration === 1).length, 2);
  assert.ok(result.iterations.every((record) => record.note !== "no budget left for the child's minibatch"), JSON.stringify(result.iterations));
  assert.equal(result.budget.used, log.flat().length);
});
