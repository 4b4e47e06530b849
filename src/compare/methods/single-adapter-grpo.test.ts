import assert from "node:assert/strict";
import { test } from "node:test";
import { createModuleEnvironment } from "../../envs/modules/module-environment.js";
import { nativeModuleRunner } from "../../envs/modules/module-runner.js";
import { MINI_TARGET_MODULE } from "../../envs/mini/index.js";
import { restrictTasks } from "./single-adapter-grpo.js";

test("a restricted environment exposes only the given tasks and delegates everything else", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(MINI_TARGET_MODULE), seeds: [0, 1, 2, 100_000], name: "mini" });
  const training = environment.tasks().slice(0, 3);
  const restricted = restrictTasks(environment, training);
  assert.deepEqual(restricted.tasks().map((task) => task.id), ["seed-0", "seed-1", "seed-2"]);
  assert.equal(restricted.name, "mini");
  assert.equal(restricted.systemPrompt(training[0]!), environment.systemPrompt(training[0]!));
  assert.equal(restricted.task("seed-100000").id, "seed-100000", "lookups still reach the whole environment");
});
