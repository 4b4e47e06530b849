import assert from "node:assert/strict";
import { test } from "node:test";
import { passesByRoute, routingAccuracy, routingDistribution } from "./routing-summary.js";

test("routing accuracy is the share of judged tasks sent to an environment of their own family", () => {
  const accuracy = routingAccuracy([
    { taskFamily: "orders", chosenFamilies: ["orders"] },
    { taskFamily: "orders", chosenFamilies: ["refunds"] },
    { taskFamily: "refunds", chosenFamilies: undefined },
    { taskFamily: "refunds", chosenFamilies: ["refunds"] },
  ]);
  assert.deepEqual(accuracy && { tasks: accuracy.tasks, correct: accuracy.correct, accuracy: accuracy.accuracy }, { tasks: 4, correct: 2, accuracy: 0.5 });
  assert.equal(routingAccuracy([]), undefined, "no family known: no accuracy rather than 0/0");
});

test("a multi-part task is routed right to any family it needs; the accuracy is also given per task family", () => {
  const accuracy = routingAccuracy([
    { taskFamily: "composite", needs: ["multi_cancel", "payment"], chosenFamilies: ["payment"] },
    { taskFamily: "composite", needs: ["multi_cancel", "payment"], chosenFamilies: ["precondition"] },
    { taskFamily: "composite", needs: ["multi_cancel"], chosenFamilies: undefined },
    { taskFamily: "payment", chosenFamilies: ["payment"] },
  ]);
  const multiPartOption = ["multi_cancel", "composite"];
  const several = routingAccuracy([
    { taskFamily: "composite", needs: ["multi_cancel", "payment"], chosenFamilies: multiPartOption },
    { taskFamily: "precondition", chosenFamilies: multiPartOption },
  ]);
  assert.deepEqual(several && [several.correct, several.tasks], [1, 2], "an option of several families is right for a task that needs any of them");
  assert.deepEqual(accuracy && { correct: accuracy.correct, tasks: accuracy.tasks }, { correct: 2, tasks: 4 });
  assert.deepEqual(accuracy?.byFamily, { composite: { tasks: 3, correct: 1, accuracy: 1 / 3 }, payment: { tasks: 1, correct: 1, accuracy: 1 } });
});

test("the routing distribution counts each option's tasks by label, in the options' order, the base option named", () => {
  const options = [
    { label: "A", capability: "tool_calling_precision" },
    { label: "B", capability: null },
    { label: "C", capability: "multi_step_completion" },
  ];
  const decisions = ["A", "B", "A", "B", "B"].map((label) => ({ label }));
  assert.deepEqual(routingDistribution({ options, decisions }), [
    { option: "tool_calling_precision", label: "A", tasks: 2 },
    { option: "base (none of these)", label: "B", tasks: 3 },
    { option: "multi_step_completion", label: "C", tasks: 0 },
  ]);
});

test("the tasks routed to each option: the base's and the routed agent's finished episodes on them, evaluation tasks only", () => {
  const file = {
    options: [
      { label: "A", capability: "payments" },
      { label: "B", capability: null },
    ],
    decisions: [
      { environment: "shop", taskId: "t1", label: "A" },
      { environment: "shop", taskId: "t2", label: "A" },
      { environment: "shop", taskId: "t3", label: "B" },
      // A training task (no evaluation episode) and another environment's decision are not counted.
      { environment: "shop", taskId: "train-1", label: "A" },
      { environment: "other", taskId: "t1", label: "B" },
    ],
  };
  const episode = (taskId: string, success: boolean | null, status = "finished") => ({ taskId, success, status });
  const routed = [episode("t1", true), episode("t2", true), episode("t3", false), episode("t3", null, "failed")];
  const base = [episode("t1", false), episode("t2", true), episode("t3", true)];
  assert.deepEqual(passesByRoute(file, "shop", routed, base), [
    { option: "payments", label: "A", tasks: 2, base: { passed: 1, total: 2 }, trace: { passed: 2, total: 2 } },
    { option: "base (none of these)", label: "B", tasks: 1, base: { passed: 1, total: 1 }, trace: { passed: 0, total: 1 } },
  ]);
});

test("a task sent to the merged adapters is routed right when it needs two or more families, wrong otherwise", () => {
  const accuracy = routingAccuracy([
    { taskFamily: "composite", needs: ["multi_cancel", "payment"], chosenFamilies: [], chosenMerged: true },
    { taskFamily: "payment", chosenFamilies: [], chosenMerged: true },
    { taskFamily: "payment", chosenFamilies: ["payment"] },
  ]);
  assert.equal(accuracy?.correct, 2);
  assert.deepEqual(accuracy?.byFamily, { composite: { tasks: 1, correct: 1, accuracy: 1 }, payment: { tasks: 2, correct: 1, accuracy: 0.5 } });
});
