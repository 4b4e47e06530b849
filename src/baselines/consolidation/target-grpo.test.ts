import assert from "node:assert/strict";
import { test } from "node:test";
import { loadTau2Domain } from "../../envs/tau2/domains.js";
import { createTau2Environment } from "../../envs/tau2/environment.js";
import { tau2DomainDirectory } from "../../testing/shared-data.js";
import type { RunGrpoOptions, RunGrpoResult } from "../../training/grpo-types.js";
import { runTargetGrpo, totalCapabilityIterations } from "./target-grpo.js";

const airline = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline")));
const retail = createTau2Environment(loadTau2Domain("retail", tau2DomainDirectory("retail")));

test("the target baseline runs as many iterations as all capabilities together", () => {
  assert.equal(totalCapabilityIterations({ multi_step_completion: 40, precondition_verification: 40, structured_data_reasoning: 25 }), 105);
  assert.equal(totalCapabilityIterations([3, 4]), 7);
  assert.throws(() => totalCapabilityIterations([1.5]), RangeError);
});

test("runGrpo gets every τ² task of both domains, the scripted user, the summed iterations and the caller's settings", async () => {
  let received: RunGrpoOptions | undefined;
  const fake = (options: RunGrpoOptions): Promise<RunGrpoResult> => {
    received = options;
    return Promise.resolve({ capability: options.capability, adapter: options.capability, resumedFrom: 0, history: [], finalAdapterPath: null, samplerModel: "m", metricsFile: "", aborted: false });
  };
  const result = await runTargetGrpo({
    domains: [{ name: "airline", environment: airline }, { name: "retail", environment: retail }],
    iterations: totalCapabilityIterations([2, 3]),
    groups: 4,
    samples: 2,
    trainer: {} as never,
    sampler: {} as never,
    adaptersDirectory: "adapters",
    runGrpo: fake,
  });
  assert.equal(result.capability, "target");
  assert.ok(received !== undefined);
  assert.equal(received.iterations, 5);
  assert.equal(received.groups, 4);
  assert.equal(received.samples, 2);
  const tasks = received.environment.tasks();
  assert.equal(tasks.length, airline.tasks().length + retail.tasks().length);
  assert.deepEqual(tasks.slice(0, 2).map((task) => task.id), [`airline/${airline.tasks()[0]!.id}`, `retail/${retail.tasks()[0]!.id}`]);

  const task = received.environment.task(`retail/${retail.tasks()[3]!.id}`);
  assert.equal(received.environment.systemPrompt(task), retail.systemPrompt(retail.tasks()[3]!));
  const user = received.makeUser(task);
  assert.equal((await user.respond([])).content, retail.tasks()[3]!.userInstructions);
  assert.equal((await user.respond([])).content, "###STOP###");
});
