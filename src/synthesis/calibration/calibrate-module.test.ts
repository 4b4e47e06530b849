import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import type { FakeChatServer } from "../../testing/fake-chat-server.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "../sandbox/sandboxed-module-runner.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";
import { calibrateDifficulty, calibrateModule, formatCalibrationReport, summarizeCalibration, DEFAULT_CALIBRATION_TARGETS } from "./calibrate-module.js";
import { atDifficulty, DifficultyLevelError } from "../../envs/modules/module-runner.js";

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

/**
 * A module with five difficulty levels (its request names the level) and a scripted policy that solves the share
 * (4 − level) / 4 of conversations: levels 0 and 1 are too easy (mean 1.0, 0.75), level 2 is in the window (0.5),
 * level 3 has the mean of the window (0.25) but too many all-0 groups, level 4 is too hard (0).
 */
function levelledModule(initial: number): string {
  return minimalModuleSource({
    fields: `difficulty: { levels: 5, initial: ${initial}, description: "fewer solvable conversations" },`,
    instance: `{ state: { reservations: { [id]: { status: "active" } } }, request: "Please cancel reservation " + id + " (level " + String(level ?? ${initial}) + ").", followUps: [], solution: [{ name: "cancel_reservation", arguments: { reservation_id: id } }], mustSay: [], facts: { id } }`,
  });
}

function levelPolicy(): Promise<FakeChatServer> {
  let conversations = 0;
  return startFakeChatServer((request, res) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    if (last?.role === "tool") return sendJson(res, 200, chatBody({ content: "Done." }));
    const [, id, level] = /reservation (R\d+) \(level (\d)\)/.exec(last?.content ?? "") ?? [];
    conversations += 1;
    if (conversations % 4 < 4 - Number(level)) {
      const call = { id: `call_${conversations}`, type: "function", function: { name: "cancel_reservation", arguments: JSON.stringify({ reservation_id: id }) } };
      return sendJson(res, 200, chatBody({ content: null, tool_calls: [call] }));
    }
    return sendJson(res, 200, chatBody({ content: "I cannot help with that." }));
  });
}

test("calibrateDifficulty moves a module with levels harder while the base does too well, and keeps the level that passes", async () => {
  const levelled = await loadSandboxedModule({ source: levelledModule(0) });
  const server = await levelPolicy();
  try {
    assert.deepEqual(levelled.difficulty, { levels: 5, initial: 0, description: "fewer solvable conversations" });
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateDifficulty({ runner: levelled, policy, seeds: [0, 1, 2, 3], samples: 4, concurrency: 1 });
    assert.equal(report.passed, true, formatCalibrationReport(report));
    assert.deepEqual(report.difficulty, { level: 2, levels: 5, tried: [{ level: 0, meanReward: 1, passed: false }, { level: 1, meanReward: 0.75, passed: false }, { level: 2, meanReward: 0.5, passed: true }] });
    assert.match(formatCalibrationReport(report), /difficulty level 2 of 0–4 \(tried 0: mean 1\.000; 1: mean 0\.750; 2: mean 0\.500 PASS\)/);
    // The chosen level reaches the module: its worlds at level 2 say so.
    assert.match((await atDifficulty(levelled, 2).generate(0)).request, /\(level 2\)/);
  } finally {
    await server.close();
    await levelled.dispose();
  }
});

test("calibrateDifficulty moves easier from a level too hard, stops where the mean is in the window but groups are not, and keeps the nearest level", async () => {
  const levelled = await loadSandboxedModule({ source: levelledModule(4) });
  const server = await levelPolicy();
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateDifficulty({ runner: levelled, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 1 });
    assert.equal(report.passed, false);
    assert.deepEqual(report.difficulty?.tried.map((tried) => tried.level), [4, 3]);
    assert.equal(report.difficulty?.level, 3);
    assert.equal(report.meanReward, 0.25);
    assert.match(report.problems.join("\n"), /all-0 groups/);
  } finally {
    await server.close();
    await levelled.dispose();
  }
});

test("a module without levels is calibrated as it is, and atDifficulty refuses a level it does not have", async () => {
  const server = await scriptedPolicy(2);
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateDifficulty({ runner, policy, seeds: [0, 1], samples: 2, concurrency: 1 });
    assert.equal(report.difficulty, undefined);
    assert.equal(report.meanReward, 0.5);
    assert.throws(() => atDifficulty(runner, 1), (error: unknown) => error instanceof DifficultyLevelError && error.levels === undefined);
    assert.equal(atDifficulty(runner, undefined), runner);
  } finally {
    await server.close();
  }
});
