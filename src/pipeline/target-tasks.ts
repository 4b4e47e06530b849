/**
 * The target environments of a run: τ² domains (the first N tasks of each, in τ²'s order; a scripted user reading the
 * task's instructions) or the TRACE-mini world (training seeds for the base rollouts, held-out seeds for evaluation; the
 * instance's scripted user).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { DataFileError } from "../envs/core/data-file-error.js";
import { createCustomEnvironment } from "../envs/custom/custom-environment.js";
import { loadGraderModule, loadTargetModule, readTargetTasksFile, TargetModuleError, type LoadedTargetModule } from "../envs/custom/load-target-module.js";
import { createMcpTarget } from "../envs/custom/mcp-target.js";
import { targetTaskOf, type GradeResult } from "../envs/custom/target-module.js";
import { miniTargetModule } from "../envs/mini/index.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { createToolSandboxEnvironment, firstUserMessage } from "../envs/toolsandbox/environment.js";
import { loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { createToolSandboxScriptedUser, createToolSandboxUser } from "../envs/toolsandbox/user-simulator.js";
import { createLlmUserSimulator, readUserSimulatorGuidelines } from "../rollout/llm-user-simulator.js";
import { createScriptedUser } from "../rollout/scripted-user.js";
import type { SimulatedUser } from "../rollout/simulated-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import { createModuleEnvironment, type ModuleEnvironment } from "../envs/modules/module-environment.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import { PROMPTS_ROOT } from "../prompts/prompt-file.js";
import { roleClient } from "./endpoints.js";
import { createJudgeGrader } from "./judge-grader.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

/** The environment name of the TRACE-mini target. */
const MINI_ENVIRONMENT_NAME = "mini-service";

export interface TargetDomain {
  /** `airline`, `retail` or `mini`. */
  domain: string;
  environment: Environment;
  /** Tasks of the base rollouts (analysis, routing examples, GRPO-on-target). */
  tasks: Task[];
  /** Tasks the methods are compared on: held-out seeds for `mini`; τ² has no local test split, so its configured tasks. */
  evaluationTasks: Task[];
  makeUser: (task: Task) => SimulatedUser;
  /** The user's request as the router sees it (the first user message). */
  request: (task: Task) => string;
  /** The module environment behind a `mini` target (for the module reference labeler and routing accuracy). */
  moduleEnvironment?: ModuleEnvironment;
  /** Which tasks were used for what, in words (e.g. τ²'s `split_tasks.json` train / test). */
  split: string;
  /**
   * The kinds a task counts under, for reports that break pass rates down by them (TRACE-mini: the task family, and for
   * a precondition task also whether its order is pending); absent for τ².
   */
  taskGroups?: (task: Task) => readonly string[];
}

/** τ²-bench's `split_tasks.json` of a domain directory: task ids per split name; undefined when the file is absent. */
function readTaskSplit(directory: string): Record<string, string[]> | undefined {
  const file = path.join(directory, "split_tasks.json");
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DataFileError(file, [`not JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new DataFileError(file, ["(top level): expected an object of split name → task ids"]);
  const split: Record<string, string[]> = {};
  for (const [name, ids] of Object.entries(value)) {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string")) throw new DataFileError(file, [`${name}: expected a list of task ids`]);
    split[name] = ids as string[];
  }
  return split;
}

function seedRange(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => start + index);
}

/** Loaded user targets (module, MCP) by run: loaded once per process, closed by `closeTargetDomains` (an MCP server is a child process). */
const userTargets = new Map<string, { domains: Promise<TargetDomain[]>; close(): Promise<void> }>();

/** Closes the user targets this process loaded (stops MCP servers); the next `loadTargetDomains` loads them again. */
export async function closeTargetDomains(): Promise<void> {
  const open = [...userTargets.values()];
  userTargets.clear();
  await Promise.all(open.map((entry) => entry.close()));
}

/** Loads the configured target. */
export async function loadTargetDomains(config: ResolvedPipelineConfig): Promise<TargetDomain[]> {
  const { target } = config;
  if (target.kind === "module" || target.kind === "mcp") {
    const key = JSON.stringify([config.runDirectory, target]);
    let entry = userTargets.get(key);
    if (entry === undefined) {
      let close = (): Promise<void> => Promise.resolve();
      const domains = loadUserTarget(config, (closer) => (close = closer));
      entry = { domains, close: async () => (await domains.catch(() => undefined), close()) };
      userTargets.set(key, entry);
      domains.catch(() => userTargets.delete(key));
    }
    return entry.domains;
  }
  if (target.kind === "mini") {
    const training = seedRange(0, target.trainingSeeds);
    const evaluation = seedRange(target.evaluationSeedStart, target.evaluationSeedCount);
    const environment = await createModuleEnvironment({ runner: nativeModuleRunner(miniTargetModule(target.families)), seeds: [...training, ...evaluation], name: MINI_ENVIRONMENT_NAME, maxSteps: target.maxSteps });
    const tasks = environment.tasks();
    return [
      {
        domain: "mini",
        environment,
        tasks: tasks.slice(0, training.length),
        evaluationTasks: tasks.slice(training.length),
        makeUser: (task) => createInstanceUser(environment.instance(task)),
        request: (task) => environment.instance(task).request,
        moduleEnvironment: environment,
        taskGroups: (task) => miniTaskKinds(environment.instance(task).facts),
        split: `training seeds 0-${target.trainingSeeds - 1}, held-out evaluation seeds ${target.evaluationSeedStart}-${target.evaluationSeedStart + target.evaluationSeedCount - 1}`,
      },
    ];
  }
  if (target.kind === "toolsandbox") return [toolSandboxTarget(config)];
  const dataDirectory = target.dataDirectory!;
  const makeUser = tau2UserFactory(config);
  return target.domains.map((domain) => {
    const directory = path.join(dataDirectory, domain);
    const environment = createTau2Environment(loadTau2Domain(domain, directory));
    const all = environment.tasks();
    const limit = (tasks: Task[]) => (target.tasksPerDomain === undefined ? tasks : tasks.slice(0, target.tasksPerDomain));
    const split = readTaskSplit(directory);
    const pick = (name: string) => (split?.[name] === undefined ? undefined : all.filter((task) => split[name]!.includes(task.id)));
    const train = pick("train");
    const test = pick("test");
    const tasks = limit(train ?? [...all]);
    const evaluationTasks = test === undefined ? tasks : limit(test);
    const words =
      test !== undefined
        ? `split_tasks.json: analysis and training on ${tasks.length} train tasks, evaluation on ${evaluationTasks.length} test tasks`
        : `${split === undefined ? "no split_tasks.json" : "split_tasks.json has no test split"}: analysis, training and evaluation on the same ${tasks.length} ${train === undefined ? "" : "train "}tasks`;
    return { domain, environment, tasks, evaluationTasks, makeUser, request: (task) => task.userInstructions, split: words };
  });
}

/**
 * ToolSandbox: the scenarios of the configured augmentations (the first N when `tasksPerDomain` is set), used for both
 * analysis and evaluation (ToolSandbox has no split); its scripted user (the scenario's first message, then
 * `end_conversation`) or its LLM user on the `user` role.
 */
function toolSandboxTarget(config: ResolvedPipelineConfig): TargetDomain {
  const { target } = config;
  const environment = createToolSandboxEnvironment(loadToolSandboxExport(target.dataDirectory!), { augmentations: target.augmentations });
  const all = environment.tasks();
  const tasks = target.tasksPerDomain === undefined ? [...all] : all.slice(0, target.tasksPerDomain);
  const client = target.user === "scripted" ? undefined : roleClient(config, "user");
  const makeUser = (task: Task): SimulatedUser =>
    client === undefined ? createToolSandboxScriptedUser(environment.scenario(task), []) : createToolSandboxUser({ client, scenario: environment.scenario(task), sampling: { temperature: target.userTemperature } });
  return {
    domain: "toolsandbox",
    environment,
    tasks,
    evaluationTasks: tasks,
    makeUser,
    request: (task) => firstUserMessage(environment.scenario(task)),
    split: `ToolSandbox has no split: analysis, training and evaluation on the same ${tasks.length} scenarios (${target.augmentations.join(", ")})`,
  };
}

/** The user of a τ² task: its instructions as one scripted message, or τ²-bench's LLM user simulator on the `user` role. */
function tau2UserFactory(config: ResolvedPipelineConfig): (task: Task) => SimulatedUser {
  const { target } = config;
  if (target.user === "scripted") return (task) => createScriptedUser([task.userInstructions]);
  const guidelines = readUserSimulatorGuidelines(target.userGuidelines ?? path.join(target.dataDirectory!, "user_simulator"));
  const client = roleClient(config, "user");
  return (task) => createLlmUserSimulator({ client, guidelines, scenario: task.userInstructions, sampling: { temperature: target.userTemperature } });
}

/** A module or MCP target: its train tasks for the base rollouts, its test tasks (or the train tasks) for evaluation. */
async function loadUserTarget(config: ResolvedPipelineConfig, onClose: (close: () => Promise<void>) => void): Promise<TargetDomain[]> {
  const { target } = config;
  let loaded: LoadedTargetModule;
  if (target.kind === "module") {
    loaded = await loadTargetModule(target.module!);
  } else {
    const mcp = target.mcp!;
    const grade = "module" in mcp.grader ? await loadGraderModule(mcp.grader.module) : createJudgeGrader({ client: roleClient(config, "judge"), temperature: mcp.grader.judge.temperature });
    const hidden = new Set(mcp.hiddenTools);
    const server = mcp.url !== undefined ? { url: mcp.url } : { command: mcp.command!, args: mcp.args, env: mcp.env, ...(mcp.cwd === undefined ? {} : { cwd: mcp.cwd }) };
    const opened = await createMcpTarget({
      name: mcp.name,
      server,
      tasks: readTargetTasksFile(mcp.tasksFile),
      state: mcp.state,
      ...(mcp.policyFile === undefined ? {} : { policy: readPolicyFile(mcp.policyFile) }),
      grade: (input) => grade(input) as Promise<GradeResult>,
      callTimeoutSeconds: mcp.callTimeoutSeconds,
      hiddenTools: hidden,
    });
    onClose(() => opened.close());
    loaded = opened;
  }
  const environment = createCustomEnvironment(loaded, { maxSteps: target.maxSteps });
  const train = environment.trainTasks();
  const test = environment.testTasks();
  const limit = (tasks: Task[]) => (target.tasksPerDomain === undefined ? tasks : tasks.slice(0, target.tasksPerDomain));
  const tasks = limit(train);
  const evaluationTasks = test.length === 0 ? tasks : limit(test);
  if (tasks.length === 0) throw new TargetModuleError(target.kind === "module" ? target.module! : target.mcp!.tasksFile, "tasks", 'no training tasks (every task has split "test")');
  const makeUser = customUserFactory(config);
  return [
    {
      domain: environment.name,
      environment,
      tasks,
      evaluationTasks,
      makeUser,
      request: (task) => targetTaskOf(task).userMessages?.[0] ?? task.userInstructions,
      split: test.length === 0 ? `no test tasks: analysis, training and evaluation on the same ${tasks.length} tasks` : `analysis and training on ${tasks.length} train tasks, evaluation on ${evaluationTasks.length} test tasks`,
    },
  ];
}

function readPolicyFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new DataFileError(file, [(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such policy file" : (error as Error).message]);
  }
}

/** The user of a custom target's task: its scripted lines (or its instructions as one line), or the LLM user on the `user` role. */
function customUserFactory(config: ResolvedPipelineConfig): (task: Task) => SimulatedUser {
  const { target } = config;
  if (target.user === "scripted") return (task) => createScriptedUser(targetTaskOf(task).userMessages ?? [task.userInstructions]);
  const guidelines = target.userGuidelines === undefined ? readFileSync(path.join(PROMPTS_ROOT, "targets/user-simulator.md"), "utf8") : readUserSimulatorGuidelines(target.userGuidelines);
  const client = roleClient(config, "user");
  return (task) => createLlmUserSimulator({ client, guidelines, scenario: task.userInstructions, sampling: { temperature: target.userTemperature } });
}

/**
 * The kinds a TRACE-mini task counts under: its family; a precondition task also under whether its order is pending
 * (the base mostly passes those and fails the others, so a split's gain follows how many of each it holds), and one
 * whose order is not pending under its status too (the base fails delivered orders more often than processed ones).
 */
export function miniTaskKinds(facts: Record<string, unknown>): string[] {
  const family = typeof facts.family === "string" ? facts.family : "unknown";
  if (family !== "precondition" || typeof facts.status !== "string") return [family];
  if (facts.status === "pending") return [family, `${family} · pending`];
  return [family, `${family} · not pending`, `${family} · ${facts.status}`];
}
