/**
 * The evaluate stage: the routed agent (each task sampled with the adapter its routing decision chose, or the base) and
 * the base model on the evaluation tasks, and each adapter vs the base on held-out seeds of its capability environment,
 * all with the evaluation settings (`evaluation-episodes.ts`, shared with `trace compare`), into `eval/episodes.sqlite`;
 * then `eval/results.json` and `eval/report.md`; on a TRACE-mini target also `eval/base-failures.json` and
 * `eval/trace-failures.json`, what explains the base's and the routed agent's failed held-out episodes.
 */
import { toolSandboxCategorySummary, toolSandboxResults } from "../envs/toolsandbox/category-report.js";
import type { ChatClient } from "../models/chat-client.js";
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import { baseEvaluationEnvironment, type EvaluationResults, type PassCount } from "../run/evaluation-results.js";
import type { PipelineContext } from "./pipeline-context.js";
import { rolloutProgressLog } from "./stage-progress.js";
import { formatReport } from "./report-table.js";
import { createRoutedChatClient } from "../routing/routed-chat-client.js";
import { createRunRouter, routedAdapters } from "./route-stage.js";
import { runEvaluation } from "./evaluation-episodes.js";
import { sumPassCounts, type EvaluationScore } from "./pass-counts.js";
import { passesByRoute, routingDistribution } from "./routing-summary.js";
import { ensureAdaptersServed } from "./serve-adapter.js";
import { loadTargetDomains } from "./target-tasks.js";
import { miniFailuresLine, summarizeMiniFailures, type MiniFailureSummary } from "./mini-failures.js";
import { writeJsonArtifact } from "../run/json-artifact.js";

/** Runs the evaluations, writes the results and the report; returns a one-line summary. */
export async function runEvaluateStage(context: PipelineContext): Promise<string> {
  const { config, run } = context;
  const { target, evaluation } = config;
  // After a resume the worker is fresh: the trained adapters are loaded from their directories.
  const routing = run.readRoutingFile();
  await ensureAdaptersServed(context, await routedAdapters(context, routing.options));
  const chosen = new Map(routing.decisions.map((decision) => [`${decision.environment}\u0000${decision.taskId}`, decision.model]));
  const clients = new Map<string, ChatClient>();
  for (const option of routing.options) clients.set(option.model, await context.sampler(option.model));
  const base = await context.sampler();
  let router: ReturnType<typeof createRunRouter> | undefined;

  const evalStore = context.openStore(run.evaluationStoreFile);
  try {
    const domains: EvaluationResults["domains"] = [];
    let failures: EvaluationResults["failures"];
    let toolsandboxCategories: EvaluationResults["toolsandboxCategories"];
    // Per routing option, over every domain: the evaluation tasks routed to it, passed by the base and by TRACE.
    const routes: NonNullable<EvaluationResults["routes"]> = [];
    for (const { domain, environment, tasks, evaluationTasks, makeUser, split, moduleEnvironment, taskGroups } of await loadTargetDomains(config)) {
      const grouping = taskGroups === undefined ? {} : { taskGroups };
      context.log(`  ${environment.name}: ${split}`);
      const routed = await runEvaluation({
        config,
        environment,
        tasks: evaluationTasks,
        store: evalStore,
        makeUser,
        makePolicy: (episode) => {
          const model = chosen.get(`${environment.name}\u0000${episode.task.id}`);
          if (model !== undefined) return clients.get(model) ?? base;
          // Not routed yet (the LLM user's first message on a held-out task): route on the conversation itself.
          return createRoutedChatClient({
            route: async (request) => (await (router ??= createRunRouter(context))).route(request),
            clientFor: (routed) => clients.get(routed) ?? base,
            onRoute: (decision) => {
              // Decisions made on the conversations themselves join the routing file at once (kept across a crash).
              if (episode.key.trial !== 0) return;
              routing.decisions.push({ environment: environment.name, taskId: episode.task.id, ...decision });
              run.writeRoutingFile(routing);
            },
          });
        },
        ...grouping,
        onProgress: rolloutProgressLog((line) => context.log(line), `${environment.name} routed`),
        metadata: { agent: "trace-routed", user: target.user, stage: "evaluate" },
      });
      // The base model under the same evaluation settings (not the base rollouts, which sample as the analysis did).
      const baseName = baseEvaluationEnvironment(environment.name);
      const baseScore = await runEvaluation({
        config,
        environment: { ...environment, name: baseName },
        tasks: evaluationTasks,
        store: evalStore,
        makeUser,
        makePolicy: () => base,
        ...grouping,
        onProgress: rolloutProgressLog((line) => context.log(line), baseName),
        metadata: { agent: config.model.servedModelName, user: target.user, stage: "evaluate" },
      });
      // Both agents' episodes of this domain, read once for the failure summaries and the per-route counts.
      const routedEpisodes = evalStore.listEpisodes({ environment: environment.name });
      const baseEpisodes = evalStore.listEpisodes({ environment: baseName });
      if (target.kind === "toolsandbox") {
        // ToolSandbox's own breakdown, per scenario category (the paper's per-category figures), both agents side by side.
        toolsandboxCategories = { base: toolSandboxCategorySummary(toolSandboxResults(baseEpisodes, baseName)), trace: toolSandboxCategorySummary(toolSandboxResults(routedEpisodes, environment.name)) };
      }
      if (target.kind === "mini" && moduleEnvironment !== undefined) {
        // The measure: the base's failed held-out episodes, attributed as the rollout stage does its training
        // ones; and the routed agent's, to show which deficits TRACE removed and which it left.
        const baseFailures = await summarizeMiniFailures(moduleEnvironment, baseEpisodes);
        writeJsonArtifact(run.evaluationFailuresFile, baseFailures);
        context.log(`  ${baseName}: failed held-out episodes ${miniFailuresLine(baseFailures)}`);
        const traceFailures = await summarizeMiniFailures(moduleEnvironment, routedEpisodes);
        writeJsonArtifact(run.evaluationTraceFailuresFile, traceFailures);
        context.log(`  ${environment.name} routed: failed held-out episodes ${miniFailuresLine(traceFailures)}`);
        const counts = ({ episodes, failed, byDeficit, other, otherClaims }: MiniFailureSummary) => ({ episodes, failed, byDeficit: { ...byDeficit }, other, otherClaimingUnmadeChange: otherClaims.unmadeChange });
        failures = { base: counts(baseFailures), trace: counts(traceFailures) };
      }
      for (const route of passesByRoute(routing, environment.name, routedEpisodes, baseEpisodes)) {
        const entry = routes.find((existing) => existing.label === route.label);
        if (entry === undefined) routes.push(route);
        else {
          entry.tasks += route.tasks;
          entry.base = sumPassCounts([entry.base, route.base]);
          entry.trace = sumPassCounts([entry.trace, route.trace]);
        }
      }
      const heldOut = evaluationTasks.some((task) => !tasks.includes(task));
      const count = (score: EvaluationScore): PassCount => ({ passed: score.passed, total: score.total });
      const entry: EvaluationResults["domains"][number] = { domain, base: count(baseScore), trace: count(routed), meanReward: { base: baseScore.meanReward, trace: routed.meanReward } };
      if (baseScore.groups !== undefined && routed.groups !== undefined) {
        // Both scored the same tasks, so both list every kind.
        const traceGroups = routed.groups;
        entry.groups = Object.fromEntries(Object.entries(baseScore.groups).map(([kind, counts]) => [kind, { base: counts, trace: traceGroups[kind]! }]));
      }
      context.log(`  ${environment.name}: base ${entry.base.passed}/${entry.base.total}, TRACE ${entry.trace.passed}/${entry.trace.total}${heldOut ? " (held-out tasks)" : ""}`);
      domains.push(entry);
    }
    const capabilities: EvaluationResults["capabilities"] = [];
    const index = run.readEnvironmentIndex();
    const environments = new Map(index.environments.map((entry) => [entry.capability, entry]));
    for (const adapter of run.readTrainedAdapters()) {
      const entry = environments.get(adapter.capability)!;
      const environment = await createModuleEnvironment({ runner: await context.environment(entry), seeds: evaluation.heldOutSeeds });
      const rewards: number[] = [];
      for (const [which, model] of [
        ["base", config.model.servedModelName],
        ["adapter", adapter.adapter],
      ] as const) {
        const policy = clients.get(model) ?? (await context.sampler(model));
        const score = await runEvaluation({
          config,
          environment: { ...environment, name: `${environment.name}/${which}` },
          tasks: environment.tasks(),
          store: evalStore,
          trials: 1,
          makeUser: (task) => createInstanceUser(environment.instance(task)),
          makePolicy: () => policy,
          metadata: { agent: model, stage: "evaluate" },
        });
        rewards.push(score.meanReward);
      }
      capabilities.push({ capability: adapter.capability, seeds: [...evaluation.heldOutSeeds], before: rewards[0]!, after: rewards[1]!, iterations: adapter.iterations });
      context.log(`  ${adapter.capability}: reward ${rewards[0]!.toFixed(3)} → ${rewards[1]!.toFixed(3)} on ${evaluation.heldOutSeeds.length} held-out seeds`);
    }

    const results: EvaluationResults = {
      domains,
      overall: { base: sumPassCounts(domains.map((entry) => entry.base)), trace: sumPassCounts(domains.map((entry) => entry.trace)) },
      capabilities,
      untrained: index.skipped,
      routing: routingDistribution(routing),
      routes,
      ...(failures === undefined ? {} : { failures }),
      ...(toolsandboxCategories === undefined ? {} : { toolsandboxCategories }),
    };
    const machine = await context.machine();
    if (machine !== undefined) results.machine = machine;
    run.writeEvaluationResults(results);
    run.writeEvaluationReport(formatReport(config.name, results));
    return `base ${results.overall.base.passed}/${results.overall.base.total}, TRACE ${results.overall.trace.passed}/${results.overall.trace.total}`;
  } finally {
    evalStore.close();
  }
}
