/**
 * `npm run bench:demonstration-claims [-- --seeds 2000 --seed-start 5000000 --deficits '{"stopAfterFirstChange": 0}']`:
 * what the scripted expert's TRACE-mini demonstrations teach a base about closing replies — per kind of target task,
 * how many episodes close with a claim of a change never made (`episodeClaims`), how many call a looked-up non-pending
 * order cancelled, and how many single non-pending cancellation requests end "… is cancelled." at all (the
 * status-skipping expert's reply, the order then cancelled). With the default deficits, as the base recipe plays them in
 * the target world (its practice-world share aside), and with any of them overridden: the premise of the causal check
 * declared in docs/trace-mini-v2.md. No model; one markdown table.
 */
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { closingReply, episodeClaims, miniTargetModule, resolveExpertDeficits, createScriptedExpert } from "../envs/mini/index.js";
import { createModuleEnvironment, nativeModuleRunner } from "../envs/modules/index.js";
import { runEpisode } from "../rollout/agent-loop.js";
import { createInstanceUser } from "../rollout/instance-user.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "2000" },
    "seed-start": { type: "string", default: "5000000" },
    /** Rates overriding the expert's default deficits, as JSON (`model.sft.deficits` of a configuration). */
    deficits: { type: "string", default: "{}" },
  },
});
const deficits = resolveExpertDeficits(JSON.parse(values.deficits) as Record<string, number>);
const seedStart = Number.parseInt(values["seed-start"], 10);
const seedCount = Number.parseInt(values.seeds, 10);
if (!(seedCount > 0) || !(seedStart >= 0)) throw new Error(`--seeds takes a positive count and --seed-start a seed, got ${JSON.stringify(values.seeds)} and ${JSON.stringify(values["seed-start"])}`);
/** A fact as text (the families and statuses are strings). */
const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const runner = nativeModuleRunner(miniTargetModule(["precondition", "payment", "composite"]));
const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: seedCount }, (_, index) => seedStart + index) });

const rows = new Map<string, { nonPendingCancellation: boolean; episodes: number; unmade: number; notPending: number; cancelledReply: number }>();
for (const task of environment.tasks()) {
  const instance = environment.instance(task);
  const result = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits, seed: 0 }), user: createInstanceUser(instance) });
  const { facts } = instance;
  const changes = Array.isArray(facts.parts) ? facts.parts.length : Array.isArray(facts.order_ids) ? facts.order_ids.length : 1;
  const nonPendingCancellation = facts.family === "precondition" && facts.status !== "pending";
  const kind = `${text(facts.family)}${changes > 1 ? `, ${changes} changes` : ""}${nonPendingCancellation ? `, ${text(facts.status)}` : ""}`;
  const row = rows.get(kind) ?? { nonPendingCancellation, episodes: 0, unmade: 0, notPending: 0, cancelledReply: 0 };
  const claims = episodeClaims(result.trajectory.messages);
  row.episodes += 1;
  if (claims.unmadeChange) row.unmade += 1;
  if (claims.notPendingCalledCancelled) row.notPending += 1;
  if (nonPendingCancellation && / is cancelled\./.test(closingReply(result.trajectory.messages))) row.cancelledReply += 1;
  rows.set(kind, row);
}
const table = [["kind of target task", "demonstrations", "claim a change never made", "call a looked-up non-pending order cancelled", "a non-pending order's request answered \"… is cancelled.\""]];
for (const [kind, row] of [...rows].sort(([left], [right]) => left.localeCompare(right))) table.push([kind, String(row.episodes), String(row.unmade), String(row.notPending), row.nonPendingCancellation ? String(row.cancelledReply) : "-"]);
console.log(`\nThe scripted expert on target seeds ${seedStart}– with deficits ${JSON.stringify(deficits)}\n`);
console.log(markdownTable(table, { align: ["l", "r", "r", "r", "r"] }));
