/**
 * `npm run bench:practice-behaviour -- --model models/mini-v2-base,DIR,… [--module mini_precondition_verification --level 2 --seeds 64 --samples 16 --seed-start 0 --temperature 1]`:
 * what each base does in the precondition practice world, by the order's status — the question behind a base that
 * meets item 2 yet gains little from TRACE (thirty-first session). For every base and status: episodes, mean reward,
 * the share that looks the order up before any write, the share that cancels it, the groups (one seed's K samples)
 * whose rewards are all 0, all 1 or mixed, and, within the mixed groups (the only ones GRPO trains on), how often the
 * rewarded and the unrewarded samples looked the order up, how often a lookup was followed by a cancellation the tools
 * accepted (a base that reads the status cancels after looking up a pending order and not after any other), and how
 * often a cancellation names another order id (sampled digits gone wrong, which the tools refuse): a group whose rewarded samples looked it up more often
 * teaches the lookup; one where both did alike teaches only to cancel or not, which the request alone cannot decide.
 * Sampling as calibration does (seed `seed × K + trial`), a real worker on this machine per base. One markdown table.
 */
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { createChatClient } from "../models/chat-client.js";
import { createConcurrencyLimit } from "../models/concurrency-limit.js";
import { miniTargetModule, practiceModulesNamed, refusedCallIds } from "../envs/mini/index.js";
import { MINI_READ_TOOLS } from "../envs/mini/mini-service-module.js";
import { parseJsonObject } from "../envs/mini/scripted-expert.js";
import { atDifficulty, nativeModuleRunner } from "../envs/modules/module-runner.js";
import { createModuleEnvironment, seedTaskId } from "../envs/modules/module-environment.js";
import { runEpisode } from "../rollout/agent-loop.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { Message } from "../spec/message.js";
import { startWorker } from "../worker/worker-process.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "models/mini-v2-base" },
    module: { type: "string", default: "mini_precondition_verification" },
    level: { type: "string", default: "2" },
    seeds: { type: "string", default: "64" },
    samples: { type: "string", default: "16" },
    "seed-start": { type: "string", default: "0" },
    temperature: { type: "string", default: "1" },
    "max-tokens": { type: "string", default: "128" },
    "max-steps": { type: "string", default: "20" },
    concurrency: { type: "string", default: "32" },
  },
});

function integerOption(name: string, value: string, minimum: number): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < minimum) {
    console.error(`bench:practice-behaviour: --${name} ${JSON.stringify(value)}: expected an integer ≥ ${minimum}`);
    process.exit(1);
  }
  return parsed;
}

const level = integerOption("level", values.level, 0);
const seedCount = integerOption("seeds", values.seeds, 1);
const samples = integerOption("samples", values.samples, 2);
const seedStart = integerOption("seed-start", values["seed-start"], 0);
const seeds = Array.from({ length: seedCount }, (_, index) => seedStart + index);
// `--module target`: the target world's precondition tasks alone (target wording and ids), for a side-by-side look.
const module = values.module === "target" ? miniTargetModule(["precondition"]) : practiceModulesNamed(values.module)[0]!;

/** What one episode did with the requested order. */
interface Behaviour {
  reward: number;
  lookedUpFirst: boolean;
  cancelled: boolean;
  /** A cancellation called with an order id other than the requested one (the tools refuse it: "order not found"). */
  cancelledAnotherId: boolean;
}

/** The episode's calls, in order, with whether the tools accepted each. */
function behaviourOf(messages: readonly Message[], orderId: string, reward: number): Behaviour {
  const refused = refusedCallIds(messages);
  let lookedUp = false;
  let lookedUpFirst = false;
  let wrote = false;
  let cancelled = false;
  let cancelledAnotherId = false;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      // The order id exactly (`#W4` is not `#W45`).
      const requested = parseJsonObject(call.function.arguments)?.order_id === orderId;
      if (call.function.name === "cancel_pending_order" && !requested) cancelledAnotherId = true;
      if (call.function.name === "get_order_details" && requested) lookedUp = true;
      else if (!MINI_READ_TOOLS.includes(call.function.name) && !refused.has(call.id)) {
        if (!wrote) lookedUpFirst = lookedUp;
        wrote = true;
        if (call.function.name === "cancel_pending_order" && requested) cancelled = true;
      }
    }
  }
  return { reward, lookedUpFirst: wrote ? lookedUpFirst : lookedUp, cancelled, cancelledAnotherId };
}

interface Row {
  episodes: number;
  reward: number;
  lookedUpFirst: number;
  cancelled: number;
  /** Episodes that looked the order up before any write and then cancelled it. */
  lookedUpThenCancelled: number;
  /** Episodes that called a cancellation with another order id. */
  anotherId: number;
  groups: number;
  allZero: number;
  allOne: number;
  mixed: number;
  /** Within mixed groups: rewarded samples, those that looked up first; unrewarded samples, those that looked up first. */
  rewarded: number;
  rewardedLookedUp: number;
  unrewarded: number;
  unrewardedLookedUp: number;
}
const emptyRow = (): Row => ({ episodes: 0, reward: 0, lookedUpFirst: 0, cancelled: 0, lookedUpThenCancelled: 0, anotherId: 0, groups: 0, allZero: 0, allOne: 0, mixed: 0, rewarded: 0, rewardedLookedUp: 0, unrewarded: 0, unrewardedLookedUp: 0 });

const table: string[][] = [["base", "status", "episodes", "mean reward", "looked up first", "cancelled", "of those looked up first: cancelled", "a cancellation with another order id", "groups all 0 / all 1 / mixed", "mixed groups: rewarded samples looked up first", "unrewarded samples looked up first"]];
const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(0)}%`);
for (const model of values.model.split(",")) {
  const started = performance.now();
  const worker = await startWorker({ model, servedModelName: "base" });
  try {
    const policy = createChatClient({ baseUrl: worker.baseUrl, model: "base", maxRetries: 1, maxConcurrency: 64, timeoutMs: 600_000, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
    const native = nativeModuleRunner(module);
    const runner = native.difficulty === undefined ? native : atDifficulty(native, level);
    const environment = await createModuleEnvironment({ runner, seeds });
    const limit = createConcurrencyLimit(integerOption("concurrency", values.concurrency, 1));
    const byStatus = new Map<string, Row>();
    await Promise.all(
      seeds.map(async (seed) => {
        const task = environment.task(seedTaskId(seed));
        const instance = environment.instance(task);
        const status = typeof instance.facts.status === "string" ? instance.facts.status : "none";
        const orderIds = instance.facts.order_ids;
        const orderId = Array.isArray(orderIds) && typeof orderIds[0] === "string" ? orderIds[0] : "";
        const group = await Promise.all(
          Array.from({ length: samples }, (_, trial) =>
            limit.run(async () => {
              const result = await runEpisode({
                environment,
                task,
                policy,
                user: createInstanceUser(instance),
                sampling: { temperature: Number(values.temperature), maxTokens: integerOption("max-tokens", values["max-tokens"], 1), seed: seed * samples + trial },
                trial,
                maxSteps: integerOption("max-steps", values["max-steps"], 1),
              });
              return behaviourOf(result.trajectory.messages, orderId, result.trajectory.reward?.reward ?? 0);
            }),
          ),
        );
        for (const key of [status, "all"]) {
          const row = byStatus.get(key) ?? emptyRow();
          byStatus.set(key, row);
          row.groups += 1;
          const rewardSum = group.reduce((sum, episode) => sum + episode.reward, 0);
          if (rewardSum === 0) row.allZero += 1;
          else if (rewardSum === group.length) row.allOne += 1;
          else row.mixed += 1;
          for (const episode of group) {
            row.episodes += 1;
            row.reward += episode.reward;
            if (episode.lookedUpFirst) row.lookedUpFirst += 1;
            if (episode.cancelled) row.cancelled += 1;
            if (episode.lookedUpFirst && episode.cancelled) row.lookedUpThenCancelled += 1;
            if (episode.cancelledAnotherId) row.anotherId += 1;
            if (rewardSum === 0 || rewardSum === group.length) continue;
            if (episode.reward > 0) {
              row.rewarded += 1;
              if (episode.lookedUpFirst) row.rewardedLookedUp += 1;
            } else {
              row.unrewarded += 1;
              if (episode.lookedUpFirst) row.unrewardedLookedUp += 1;
            }
          }
        }
      }),
    );
    for (const status of [...byStatus.keys()].sort((left, right) => (left === "all" ? 1 : right === "all" ? -1 : left.localeCompare(right)))) {
      const row = byStatus.get(status)!;
      table.push([
        model,
        status,
        String(row.episodes),
        (row.reward / row.episodes).toFixed(3),
        percent(row.lookedUpFirst, row.episodes),
        percent(row.cancelled, row.episodes),
        percent(row.lookedUpThenCancelled, row.lookedUpFirst),
        percent(row.anotherId, row.episodes),
        `${row.allZero} / ${row.allOne} / ${row.mixed}`,
        `${percent(row.rewardedLookedUp, row.rewarded)} of ${row.rewarded}`,
        `${percent(row.unrewardedLookedUp, row.unrewarded)} of ${row.unrewarded}`,
      ]);
    }
    console.error(`${model}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await worker.stop();
  }
}
console.log(`\n${module.capability} at level ${level}: ${seedCount} seeds from ${seedStart} × ${samples} samples at temperature ${values.temperature}\n`);
console.log(markdownTable(table, { align: ["l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r"] }));
