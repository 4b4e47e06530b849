import assert from "node:assert/strict";
import { test } from "node:test";
import { routingAccuracy, routingDistribution } from "./routing-summary.js";

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
