/**
 * `npm run bench:per-turn -- --run-dir RUN [--family composite]`: TRACE-mini's multi-part tasks with the capability
 * adapters applied one turn at a time, against one adapter per task — an upper bound for "adapters applied per part"
 * (docs/trace-mini-v2.md, Next). Reads a run that has finished its evaluate stage (its trained adapters and
 * `eval/routing.json`), starts its worker, and plays the family's evaluation tasks under the evaluate stage's settings
 * (`runEvaluation`: the same seeds, temperature and limits) once per policy:
 *
 * - the router's choice per task (as the evaluate stage), each capability adapter for every task, the base;
 * - per turn, by the last tool result — hand-written rules that know the mini world's tools, so an upper bound, not a
 *   router: (1) after `get_order_details` the precondition adapter (cancel or refuse), after `get_user_details` the
 *   tool-calling adapter (which payment id), on the first turn and after a write the multi-step adapter (go on to the
 *   next part, or reply); (2) the same, but the first turn with the precondition adapter (look the order up before
 *   cancelling it).
 *
 * One table: per policy the tasks passed and the failed episodes by what explains them (`summarizeMiniFailures`).
 * Episodes go to a scratch store; the run is not changed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import { runEvaluation } from "../pipeline/evaluation-episodes.js";
import { summarizeMiniFailures } from "../pipeline/mini-failures.js";
import { createPipelineContext } from "../pipeline/pipeline-context.js";
import { loadPipelineConfig } from "../pipeline/pipeline-config.js";
import { ensureAdaptersServed } from "../pipeline/serve-adapter.js";
import { loadTargetDomains } from "../pipeline/target-tasks.js";
import { openRunDirectory } from "../run/run-directory.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";

const { values } = parseArgs({ options: { "run-dir": { type: "string" }, family: { type: "string", default: "composite" } } });
if (values["run-dir"] === undefined) throw new Error("--run-dir RUN is required (a TRACE-mini run that has finished its evaluate stage)");
const runDirectory = values["run-dir"];
const run = openRunDirectory(runDirectory);
const config = loadPipelineConfig(run.configFile, { runDirectory });
const context = createPipelineContext(config, (line) => console.error(line));
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-per-turn-"));
const store = openTrajectoryStore(path.join(scratch, "episodes.sqlite"));

/** The capabilities of TRACE-mini's three practice worlds, by what each one fixes. */
const CAPABILITY = { precondition: "avoid_unrequested_state_changes", payment: "correct_write_arguments", completion: "complete_required_state_changes" } as const;

/** The name of the tool whose result is the request's last message, if it is one. */
function lastToolName(request: ChatRequest): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  for (const message of request.messages) if (message.role === "assistant") for (const call of message.tool_calls ?? []) if (call.id === last.tool_call_id) return call.function.name;
  return undefined;
}

const rows: string[][] = [["policy", `${values.family} tasks passed`, "failed episodes showing: incomplete", "payment", "precondition", "something else"]];
try {
  await ensureAdaptersServed(context, run.readTrainedAdapters().map((adapter) => ({ model: adapter.adapter, adapterPath: adapter.adapterPath })));
  const routing = run.readRoutingFile();
  const modelOf = (capability: string) => {
    const option = routing.options.find((candidate) => candidate.capability === capability);
    if (option === undefined) throw new Error(`the run has no adapter for ${capability} (its routing options: ${routing.options.map((candidate) => candidate.capability ?? "base").join(", ")})`);
    return option.model;
  };
  const base = await context.sampler();
  const client = async (model: string) => await context.sampler(model);
  /** A policy that samples each turn with the adapter `capabilityOf` names for the request so far. */
  const perTurn = (capabilityOf: (tool: string | undefined) => string): ChatClient => ({
    async complete(request) {
      return (await client(modelOf(capabilityOf(lastToolName(request))))).complete(request);
    },
    usage: () => base.usage(),
  });
  const afterLookup = (tool: string | undefined) => (tool === "get_order_details" ? CAPABILITY.precondition : tool === "get_user_details" ? CAPABILITY.payment : undefined);
  for (const { environment, evaluationTasks, makeUser, moduleEnvironment, taskGroups } of await loadTargetDomains(config)) {
    if (moduleEnvironment === undefined || taskGroups === undefined) throw new Error(`${runDirectory} is not a TRACE-mini run (its target names no task families)`);
    const tasks = evaluationTasks.filter((task) => taskGroups(task).includes(values.family));
    const chosen = new Map(routing.decisions.filter((decision) => decision.environment === environment.name).map((decision) => [decision.taskId, decision.model]));
    const policies: [string, (taskId: string) => Promise<ChatClient>][] = [
      ["the router (one adapter per task)", async (taskId) => await client(chosen.get(taskId) ?? config.model.servedModelName)],
      ...routing.options.filter((option) => option.capability !== null).map((option): [string, (taskId: string) => Promise<ChatClient>] => [`${option.label}: ${option.capability} for every task`, async () => await client(option.model)]),
      ["per turn (1): after an order lookup C, a user lookup B, else A", () => Promise.resolve(perTurn((tool) => afterLookup(tool) ?? CAPABILITY.completion))],
      ["per turn (2): as (1), but the first turn C", () => Promise.resolve(perTurn((tool) => afterLookup(tool) ?? (tool === undefined ? CAPABILITY.precondition : CAPABILITY.completion)))],
      ["the base", () => Promise.resolve(base)],
    ];
    for (const [index, [name, policyFor]] of policies.entries()) {
      const policies = new Map(await Promise.all(tasks.map(async (task) => [task.id, await policyFor(task.id)] as const)));
      const named = { ...environment, name: `${environment.name}|policy-${index}` };
      const score = await runEvaluation({ config, environment: named, tasks, store, makeUser, makePolicy: ({ task }) => policies.get(task.id)!, metadata: { bench: "per-turn-adapters", policy: name } });
      const failures = await summarizeMiniFailures(moduleEnvironment, store.listEpisodes({ environment: named.name }));
      const { incomplete, payment, precondition } = failures.byDeficit;
      rows.push([name, `${score.passed} / ${score.total}`, String(incomplete), String(payment), String(precondition), String(failures.other)]);
      console.error(`${name}: ${score.passed} / ${score.total}`);
    }
  }
} finally {
  store.close();
  await context.close();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\n${config.name}: the ${values.family} evaluation tasks of ${runDirectory}, one policy per row (an episode may show several deficits)\n`);
console.log(markdownTable(rows, { align: ["l", "r", "r", "r", "r", "r"] }));
