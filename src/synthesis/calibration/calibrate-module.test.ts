import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import type { FakeChatServer } from "../../testing/fake-chat-server.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "../sandbox/sandboxed-module-runner.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";
import { calibrateModule, formatCalibrationReport, summarizeCalibration, DEFAULT_CALIBRATION_TARGETS } from "./calibrate-module.js";

/**
 * A scripted base policy for the minimal module: on a fresh conversation it either cancels the reservation the user
 * names (every `solveEvery`-th conversation) or declines; after a tool result it says it is done.
 */
function scriptedPolicy(solveEvery: number): Promise<FakeChatServer> {
  let conversations = 0;
  return startFakeChatServer((request, res) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    if (last?.role === "tool") return sendJson(res, 200, chatBody({ content: "Done: the reservation is cancelled." }));
    const id = /reservation (R\d+)/.exec(last?.content ?? "")?.[1] ?? "none";
    conversations += 1;
    if (conversations % solveEvery === 0) {
      const call = { id: `call_${conversations}`, type: "function", function: { name: "cancel_reservation", arguments: JSON.stringify({ reservation_id: id }) } };
      return sendJson(res, 200, chatBody({ content: null, tool_calls: [call] }));
    }
    return sendJson(res, 200, chatBody({ content: "I'm sorry, I cannot help with that." }));
  });
}

let runner: SandboxedModuleRunner;
before(async () => {
  runner = await loadSandboxedModule({ source: minimalModuleSource() });
});
after(() => runner.dispose());

test("a policy that solves every other episode is in range: mean 0.5, no all-0 or all-1 groups", async () => {
  const server = await scriptedPolicy(2);
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateModule({ runner, policy, seeds: [0, 1, 2, 3, 4, 5], samples: 2, concurrency: 1 });
    assert.equal(report.passed, true, formatCalibrationReport(report));
    assert.equal(report.meanReward, 0.5);
    assert.deepEqual([report.allZeroFraction, report.allOneFraction], [0, 0]);
    assert.deepEqual(report.groups[0], { seed: 0, rewards: [0, 1] });
    assert.equal(server.received[0]?.body.temperature, 1);
  } finally {
    await server.close();
  }
});

test("a policy that never solves is out of range, with the reasons", async () => {
  const server = await scriptedPolicy(Number.POSITIVE_INFINITY);
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateModule({ runner, policy, seeds: [0, 1, 2], samples: 2, concurrency: 4 });
    assert.equal(report.passed, false);
    assert.match(report.problems.join("\n"), /mean reward 0\.000 is below 0\.2(.*\n)+.*100\.0% of seeds have all-0 groups/);
  } finally {
    await server.close();
  }
});

test("the targets are configurable", () => {
  const groups = [
    { seed: 0, rewards: [1, 1] },
    { seed: 1, rewards: [0, 1] },
  ];
  assert.equal(summarizeCalibration(groups, 2, DEFAULT_CALIBRATION_TARGETS).passed, false);
  assert.equal(summarizeCalibration(groups, 2, { ...DEFAULT_CALIBRATION_TARGETS, minimumMeanReward: 0.5, maximumMeanReward: 0.8, maximumSuccessRate: 0.8, maximumAllZeroFraction: 0, maximumAllOneFraction: 0.5 }).passed, true);
});

test("constant and informative groups, success rate and spread are checked", () => {
  const report = summarizeCalibration(
    [
      { seed: 0, rewards: [0.5, 0.5] },
      { seed: 1, rewards: [0.5, 0.5] },
      { seed: 2, rewards: [0.45, 0.55] },
    ],
    2,
    DEFAULT_CALIBRATION_TARGETS,
  );
  assert.equal(report.constantFraction, 2 / 3);
  assert.equal(report.informativeFraction, 1 / 3);
  assert.equal(report.successRate, 0);
  assert.equal(report.passed, false);
  assert.match(report.problems.join("\n"), /success rate 0\.0% is below 20\.0%/);
  assert.match(report.problems.join("\n"), /reward standard deviation 0\.029 is below 0\.05/);
  assert.match(report.problems.join("\n"), /66\.7% of seeds have constant groups/);
  assert.match(report.problems.join("\n"), /33\.3% of seeds have informative groups/);
});
