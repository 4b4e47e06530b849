import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import type { FakeChatServer } from "../../testing/fake-chat-server.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "../sandbox/sandboxed-module-runner.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";
import type { CalibrationReport } from "./calibrate-module.js";
import { calibrateDifficulty, calibrateModule, CalibrationOptionError, formatCalibrationReport, nearWindowEdge, pairedStandardError, seedStandardError, summarizeCalibration, DEFAULT_CALIBRATION_TARGETS } from "./calibrate-module.js";
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

test("every episode samples with its own seed, so a calibration run twice reads the same rewards at any concurrency", async () => {
  // Solves exactly when its sampling seed is divisible by 3: the rewards are a function of the seeds calibration sends.
  const server = await startFakeChatServer((request, res) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    if (last?.role === "tool") return sendJson(res, 200, chatBody({ content: "Done." }));
    const seed = request.body.seed as number;
    if (seed % 3 !== 0) return sendJson(res, 200, chatBody({ content: "I cannot help with that." }));
    const id = /reservation (R\d+)/.exec(last?.content ?? "")?.[1] ?? "none";
    const call = { id: `call_${seed}`, type: "function", function: { name: "cancel_reservation", arguments: JSON.stringify({ reservation_id: id }) } };
    return sendJson(res, 200, chatBody({ content: null, tool_calls: [call] }));
  });
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const first = await calibrateModule({ runner, policy, seeds: [0, 1, 2, 3], samples: 3, concurrency: 1, samplingSeedStart: 100 });
    const seeds = server.received.filter((request) => (request.body.messages as { role: string }[]).at(-1)?.role !== "tool").map((request) => request.body.seed);
    assert.deepEqual(seeds, Array.from({ length: 12 }, (_, index) => 100 + index), "seed s, trial k samples with 100 + 3s + k");
    // 100 + 3s + k is divisible by 3 when k = 2 (102, 105, …): one success per group, in the last trial.
    assert.deepEqual(first.groups.map((group) => group.rewards), [[0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 1]]);
    const again = await calibrateModule({ runner, policy, seeds: [0, 1, 2, 3], samples: 3, concurrency: 12, samplingSeedStart: 100 });
    assert.deepEqual(again.groups, first.groups);
    await assert.rejects(calibrateModule({ runner, policy, seeds: [0], samples: 1, samplingSeedStart: -1 }), (error: unknown) => error instanceof CalibrationOptionError && error.option === "samplingSeedStart");
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
    assert.deepEqual(report.difficulty, { level: 2, levels: 5, tried: [{ level: 0, meanReward: 1, meanRewardStandardError: 0, passed: false }, { level: 1, meanReward: 0.75, meanRewardStandardError: 0, passed: false }, { level: 2, meanReward: 0.5, meanRewardStandardError: 0, passed: true }] });
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

test("with steerByExtremeGroups, a level in the window but with too many all-0 groups moves the search easier, to the level that passes", async () => {
  const levelled = await loadSandboxedModule({ source: levelledModule(4) });
  const server = await levelPolicy();
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateDifficulty({ runner: levelled, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 1, steerByExtremeGroups: true });
    assert.equal(report.passed, true, formatCalibrationReport(report));
    assert.deepEqual(report.difficulty?.tried.map((tried) => [tried.level, tried.meanReward, tried.passed]), [[4, 0, false], [3, 0.25, false], [2, 0.5, true]]);
    assert.equal(report.difficulty?.level, 2);
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

/** The minimal module with its seed in the request, and a policy that solves the even seeds only (each seed's group is all 1 or all 0). */
function seedModule(): string {
  return minimalModuleSource({
    instance: `{ state: { reservations: { [id]: { status: "active" } } }, request: "Please cancel reservation " + id + " (seed " + String(seed) + ").", followUps: [], solution: [{ name: "cancel_reservation", arguments: { reservation_id: id } }], mustSay: [], facts: { id } }`,
  });
}

function evenSeedPolicy(): Promise<FakeChatServer> {
  return startFakeChatServer((request, res) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    if (last?.role === "tool") return sendJson(res, 200, chatBody({ content: "Done." }));
    const [, id, seed] = /reservation (R\d+) \(seed (\d+)\)/.exec(last?.content ?? "") ?? [];
    if (Number(seed) % 2 === 0) {
      const call = { id: `call_${seed ?? ""}`, type: "function", function: { name: "cancel_reservation", arguments: JSON.stringify({ reservation_id: id }) } };
      return sendJson(res, 200, chatBody({ content: null, tool_calls: [call] }));
    }
    return sendJson(res, 200, chatBody({ content: "I cannot help with that." }));
  });
}

test("the standard error is over seeds, and a reading within the band of a window edge is near it", () => {
  const split = [
    { seed: 0, rewards: [1, 1] },
    { seed: 1, rewards: [0, 0] },
    { seed: 2, rewards: [1, 1] },
    { seed: 3, rewards: [0, 0] },
  ];
  // Seed means 1, 0, 1, 0: sample sd √(1/3), over √4 seeds.
  assert.ok(Math.abs(seedStandardError(split) - Math.sqrt(1 / 3) / 2) < 1e-12);
  assert.equal(seedStandardError([{ rewards: [1, 0] }]), 0);
  const spread = summarizeCalibration(split, 2, DEFAULT_CALIBRATION_TARGETS);
  assert.equal(spread.meanReward, 0.5);
  assert.equal(nearWindowEdge(spread, 2), true); // 0.6 − 0.5 = 0.1 < 2 × 0.289
  assert.equal(nearWindowEdge(spread, 0.3), false); // 0.1 > 0.3 × 0.289 = 0.087
  const even = summarizeCalibration(split.map((group) => ({ ...group, rewards: [0, 1] })), 2, DEFAULT_CALIBRATION_TARGETS);
  assert.equal(even.meanRewardStandardError, 0);
  assert.equal(nearWindowEdge(even, 2), false); // no spread over seeds: the reading is what it is
});

test("calibration runs further rounds on the next seeds while the reading is near a window edge, up to its rounds", async () => {
  const module = await loadSandboxedModule({ source: seedModule() });
  const server = await evenSeedPolicy();
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const progress: [number, number][] = [];
    const report = await calibrateModule({ runner: module, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 2, rounds: 3, standardErrors: 2, onEpisode: (done, total) => progress.push([done, total]) });
    assert.equal(report.rounds, 3);
    assert.deepEqual(report.groups.map((group) => group.seed), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.deepEqual(report.groups.map((group) => group.rewards), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((seed) => (seed % 2 === 0 ? [1, 1] : [0, 0])));
    assert.equal(report.seeds, 12);
    assert.equal(report.meanReward, 0.5);
    assert.deepEqual(progress.at(-1), [24, 24]);
    assert.deepEqual(progress[7], [8, 8]); // the first round's total before the second was known
    assert.match(formatCalibrationReport(report), /mean reward 0\.500 ± 0\.151, .*\(12 seeds × 2 samples in 3 rounds\)/);
    // One round is the reference's single reading; so is asking for no evidence (0 standard errors).
    const single = await calibrateModule({ runner: module, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 2 });
    assert.deepEqual([single.rounds, single.seeds], [1, 4]);
    const pointEstimate = await calibrateModule({ runner: module, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 2, rounds: 3 });
    assert.deepEqual([pointEstimate.rounds, pointEstimate.seeds], [1, 4]);
  } finally {
    await server.close();
    await module.dispose();
  }
});

test("calibration stops after the first round when the reading is clear of every edge, and refuses a bad number of rounds", async () => {
  const server = await scriptedPolicy(2);
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    const report = await calibrateModule({ runner, policy, seeds: [0, 1, 2, 3], samples: 2, concurrency: 1, rounds: 4, standardErrors: 2 });
    assert.deepEqual([report.rounds, report.seeds, report.meanRewardStandardError], [1, 4, 0]);
    await assert.rejects(calibrateModule({ runner, policy, seeds: [0], samples: 1, rounds: 0 }), (error: unknown) => error instanceof CalibrationOptionError && error.option === "rounds" && error.value === 0);
  } finally {
    await server.close();
  }
});

/**
 * A module with five levels, starting at 2, whose request names its seed and level, and a policy that solves the seeds
 * below `solved[level]` of every 8 (each seed's group all 1 or all 0, so the standard error over seeds is large).
 */
async function seededLevels(solved: Record<number, number>, standardErrors: number): Promise<CalibrationReport> {
  const module = await loadSandboxedModule({
    source: minimalModuleSource({
      fields: `difficulty: { levels: 5, initial: 2, description: "fewer solvable seeds" },`,
      instance: `{ state: { reservations: { [id]: { status: "active" } } }, request: "Please cancel reservation " + id + " (seed " + String(seed) + ", level " + String(level ?? 2) + ").", followUps: [], solution: [{ name: "cancel_reservation", arguments: { reservation_id: id } }], mustSay: [], facts: { id } }`,
    }),
  });
  const server = await startFakeChatServer((request, res) => {
    const messages = request.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    if (last?.role === "tool") return sendJson(res, 200, chatBody({ content: "Done." }));
    const [, id, seed, level] = /reservation (R\d+) \(seed (\d+), level (\d)\)/.exec(last?.content ?? "") ?? [];
    if (Number(seed) % 8 < (solved[Number(level)] ?? 0)) {
      const call = { id: `call_${seed ?? ""}`, type: "function", function: { name: "cancel_reservation", arguments: JSON.stringify({ reservation_id: id }) } };
      return sendJson(res, 200, chatBody({ content: null, tool_calls: [call] }));
    }
    return sendJson(res, 200, chatBody({ content: "I cannot help with that." }));
  });
  try {
    const policy = createChatClient({ baseUrl: server.baseUrl, model: "base" });
    return await calibrateDifficulty({ runner: module, policy, seeds: [0, 1, 2, 3, 4, 5, 6, 7], samples: 2, concurrency: 4, standardErrors });
  } finally {
    await server.close();
    await module.dispose();
  }
}

test("asked for evidence, calibrateDifficulty leaves the initial level only for a level clearly nearer the window", async () => {
  // Level 2 reads 0.625, just above the window; level 3 reads 0.5, inside it, but every group is constant (no level passes).
  const noisy = { 2: 5, 3: 4, 4: 3 };
  const nearest = await seededLevels(noisy, 0);
  assert.deepEqual(nearest.difficulty?.tried.map((tried) => [tried.level, tried.meanReward]), [[2, 0.625], [3, 0.5]]);
  assert.equal(nearest.difficulty?.level, 3); // point estimates: the nearer level
  const kept = await seededLevels(noisy, 2);
  // 0.025 nearer, against 2 × 0.125 (the per-seed differences: 1 for one seed of eight, 0 for the rest): the initial level stays.
  // Seed means five 1s and three 0s: sample variance (5 × 3 / 8) / 7, over 8 seeds.
  assert.ok(Math.abs((kept.difficulty?.tried[0]?.meanRewardStandardError ?? 0) - Math.sqrt((5 * 3) / 8 / 7 / 8)) < 1e-12);
  assert.equal(kept.difficulty?.level, 2);
  assert.equal(kept.meanReward, 0.625);
  // Level 2 solves everything (1.0): level 3 is 0.4 nearer, more than 2 × 0.189 (differences 1 for half the seeds), so it is chosen.
  const clear = await seededLevels({ 2: 8, 3: 4 }, 2);
  assert.equal(clear.difficulty?.level, 3);
});

test("the paired standard error takes the difference seed by seed, over the seeds both readings have", () => {
  const level2 = [0, 1, 2, 3].map((seed) => ({ seed, rewards: [seed % 2, seed % 2] }));
  // The same seeds, every one 0.25 easier: seeds vary a lot, the difference not at all.
  const easier = level2.map((group) => ({ seed: group.seed, rewards: group.rewards.map((reward) => reward - 0.25) }));
  assert.ok(seedStandardError(level2) > 0.28);
  assert.equal(pairedStandardError(level2, easier), 0);
  // Only seeds both have count; with fewer than two shared seeds the two errors are combined as if independent.
  assert.equal(pairedStandardError(level2, [...easier, { seed: 9, rewards: [1, 1] }]), 0);
  const apart = [{ seed: 7, rewards: [1, 0] }, { seed: 8, rewards: [0, 0] }];
  assert.ok(Math.abs(pairedStandardError(level2, apart) - Math.hypot(seedStandardError(level2), seedStandardError(apart))) < 1e-12);
});
