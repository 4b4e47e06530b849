import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadPipelineConfig, parsePipelineConfig, workerServeArguments } from "./pipeline-config.js";
import { PipelineConfigError } from "./pipeline-config-error.js";
import { checkRoleEndpoints, MissingApiKeyError, roleEndpoint } from "./endpoints.js";
import { episodesPerIterationAllowance, grpoMechanisms } from "./capability-grpo.js";
import { parseGrpoMechanisms } from "../training/grpo-mechanisms.js";
import { scratchDirectory } from "../testing/scratch-directory.js";

const minimal = { name: "x", model: {}, target: { dataDirectory: "data", domains: ["airline"] }, environments: { map: {} } };

test("defaults are applied and paths resolved", () => {
  const config = parsePipelineConfig(minimal, "c.json");
  assert.equal(config.runDirectory, path.resolve("runs/x"));
  assert.equal(config.model.path, path.resolve("runs/x/model"));
  assert.equal(config.target.dataDirectory, path.resolve("data"));
  assert.equal(config.training.iterations, 40);
  assert.equal(config.training.learningRate, 1e-5);
  assert.equal(config.analysis.labeler, "reference");
  assert.equal(config.training.keepRollouts, "all");
  assert.equal(config.environments.calibration.steerByExtremeGroups, false);
});

test("worker.deterministic adds `--deterministic` to the worker's serve arguments, before any extra ones; off by default", () => {
  assert.deepEqual(workerServeArguments(parsePipelineConfig(minimal, "c.json").worker), []);
  const deterministic = parsePipelineConfig({ ...minimal, worker: { deterministic: true, extraArguments: ["--no-cuda-graphs"] } }, "c.json");
  assert.deepEqual(workerServeArguments(deterministic.worker), ["--deterministic", "--no-cuda-graphs"]);
  assert.throws(() => parsePipelineConfig({ ...minimal, worker: { deterministic: "yes" } }, "c.json"), (error: unknown) => PipelineConfigError.isInstance(error) && /worker\.deterministic/.test(error.message));
});

test("training.keepRollouts: all, none or a positive number of iterations", () => {
  const keep = (value: unknown) => parsePipelineConfig({ ...minimal, training: { keepRollouts: value } }, "c.json").training.keepRollouts;
  assert.equal(keep("none"), "none");
  assert.equal(keep(3), 3);
  for (const bad of [0, 1.5, "some"]) assert.throws(() => keep(bad), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("training.keepRollouts:")), String(bad));
});

test("training: K = 16 rollouts per group and the reference trainer's mechanisms by default, the same with or without the section", () => {
  const config = parsePipelineConfig(minimal, "c.json");
  assert.deepEqual([config.training.groups, config.training.samples], [8, 16]);
  assert.deepEqual(grpoMechanisms(config.training), parseGrpoMechanisms(undefined));
  assert.deepEqual(parsePipelineConfig({ ...minimal, training: {} }, "c.json").training, config.training);
  const tuned = parsePipelineConfig({ ...minimal, training: { hints: { share: 0.5 }, dynamicSampling: { extraRounds: 0 } } }, "c.json");
  assert.deepEqual([tuned.training.hints.share, tuned.training.dynamicSampling, tuned.training.dropInformationTurns], [0.5, { extraRounds: 0, minInformativeShare: 0.5 }, true]);
  assert.equal(episodesPerIterationAllowance(config.training), 8 * 16 * 3);
  assert.throws(() => parsePipelineConfig({ ...minimal, training: { hints: { share: 1.5 } } }, "c.json"), /training\.hints\.share/);
});

test("every default lives in the schema: a section given in part gets the rest, and defaults that depend on other fields are filled in", () => {
  const config = parsePipelineConfig(
    {
      ...minimal,
      model: { sft: { learningRate: 0.01, refresh: { demonstrations: 10 } } },
      target: { ...minimal.target, maxTokens: 77, maxSteps: 9 },
      training: { iterations: 3 },
      analysis: { runs: 6 },
      environments: { map: {}, calibration: { seeds: 4 } },
    },
    "c.json",
  );
  assert.equal(config.training.iterations, 3);
  assert.equal(config.training.groups, 8, "the rest of a given section takes the schema's defaults");
  assert.equal(config.environments.calibration.seeds, 4);
  assert.equal(config.environments.calibration.samples, 16);
  assert.equal(config.environments.calibration.temperature, 1, "calibration samples at GRPO's temperature unless told otherwise");
  const cooler = parsePipelineConfig({ ...minimal, training: { temperature: 0.8 } }, "c.json");
  assert.equal(cooler.environments.calibration.temperature, 0.8);
  assert.equal(parsePipelineConfig({ ...minimal, training: { temperature: 0.8 }, environments: { calibration: { temperature: 0.7 } } }, "c.json").environments.calibration.temperature, 0.7);
  assert.equal(config.analysis.minRuns, 5, "⌈0.8 · 6⌉");
  assert.equal(parsePipelineConfig({ ...minimal, analysis: { runs: 6, minRuns: 2 } }, "c.json").analysis.minRuns, 2);
  assert.equal(config.model.sft?.refresh?.learningRate, 0.01, "the refresh epochs' learning rate defaults to the SFT one");
  assert.equal(config.model.sft?.refresh?.epochs, 1);
  assert.deepEqual([config.evaluation.maxTokens, config.evaluation.maxSteps], [77, 9], "evaluation takes the target's limits unless it sets its own");
  const own = parsePipelineConfig({ ...minimal, target: { ...minimal.target, maxTokens: 77 }, evaluation: { maxTokens: 5 } }, "c.json");
  assert.equal(own.evaluation.maxTokens, 5);
  assert.deepEqual(parsePipelineConfig(minimal, "c.json").roles, { policy: "worker", router: "worker" });
});

test("model.sft: a schedule given in part decays by a cosine to 10% after no warmup; practiceShare stays below 1; compare.gepa defaults to gepa's", () => {
  const config = parsePipelineConfig({ ...minimal, model: { sft: { schedule: {}, practiceShare: 0.3 } }, compare: {} }, "c.json");
  assert.deepEqual(config.model.sft?.schedule, { warmupSteps: 0, decay: "cosine", floor: 0.1 });
  assert.deepEqual([config.model.sft?.practiceShare, config.model.sft?.shuffle], [0.3, false]);
  assert.equal(parsePipelineConfig({ ...minimal, model: { sft: {} } }, "c.json").model.sft?.schedule, undefined, "no schedule: a constant rate");
  assert.throws(() => parsePipelineConfig({ ...minimal, model: { sft: { practiceShare: 1 } } }, "c.json"), /model\.sft\.practiceShare/);
  assert.deepEqual(config.compare?.gepa, { minibatchSize: 3, reflectionMaxTokens: 512, proposalsPerRound: 1 });
});

test("compare.budget: what TRACE spent by default, or TRACE's allowance; anything else names the field", () => {
  const budget = (value: unknown) => parsePipelineConfig({ ...minimal, compare: value === undefined ? {} : { budget: value } }, "c.json").compare?.budget;
  assert.equal(budget(undefined), "trace");
  assert.equal(budget("allowance"), "allowance");
  assert.throws(() => budget("double"), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("compare.budget:")));
});

test("model.initTiny.tieEmbeddings is a boolean", () => {
  assert.equal(parsePipelineConfig({ ...minimal, model: { initTiny: { tieEmbeddings: true } } }, "c.json").model.initTiny?.tieEmbeddings, true);
  assert.throws(() => parsePipelineConfig({ ...minimal, model: { initTiny: { tieEmbeddings: 1 } } }, "c.json"), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("model.initTiny.tieEmbeddings:")));
});

test("worker.gpus: one GPU by default, else a positive integer", () => {
  assert.equal(parsePipelineConfig(minimal, "c.json").worker.gpus, 1);
  assert.equal(parsePipelineConfig({ ...minimal, worker: { gpus: 2 } }, "c.json").worker.gpus, 2);
  for (const bad of [0, 1.5, "2"]) {
    assert.throws(() => parsePipelineConfig({ ...minimal, worker: { gpus: bad } }, "c.json"), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("worker.gpus:")), String(bad));
  }
});

test("the offline example configuration validates", () => {
  const config = loadPipelineConfig(path.resolve("configs/offline-tiny.json"));
  assert.deepEqual(config.target.domains, ["airline", "retail"]);
  assert.equal(config.environments.map["correct_write_arguments"], "tool_calling_precision");
});

test("errors name every offending field", () => {
  assert.throws(
    () => parsePipelineConfig({ ...minimal, target: { dataDirectory: "data", domains: ["telecom"], trials: 0 }, extra: 1 }, "c.json"),
    (error: unknown) =>
      error instanceof PipelineConfigError &&
      error.issues.some((issue) => issue.startsWith("target.domains.0:")) &&
      error.issues.some((issue) => issue.startsWith("target.trials:")) &&
      /extra/.test(error.message) &&
      error.message.startsWith("c.json: "),
  );
});

test("a missing file and a file that is not JSON are configuration errors", () => {
  const directory = scratchDirectory("trace-config-");
  assert.throws(() => loadPipelineConfig(path.join(directory, "none.json")), PipelineConfigError);
  writeFileSync(path.join(directory, "bad.json"), "{");
  assert.throws(() => loadPipelineConfig(path.join(directory, "bad.json")), /not JSON/);
});

test("every example configuration validates (configs/ and examples/)", () => {
  for (const file of readdirSync("configs").filter((name) => name.endsWith(".json"))) loadPipelineConfig(path.resolve("configs", file));
  const ticketing = loadPipelineConfig(path.resolve("examples/ticketing/config.json"));
  assert.equal(ticketing.target.module, path.resolve("examples/ticketing/environment.ts"));
  const mcp = loadPipelineConfig(path.resolve("examples/ticketing/config-mcp.json"));
  assert.deepEqual([mcp.target.mcp?.state, mcp.target.mcp?.tasksFile], [{ resetTool: "reset", arguments: {} }, path.resolve("examples/ticketing/tasks.json")]);
  const paper = loadPipelineConfig(path.resolve("configs/tau2-qwen3-30b-a3b.json"));
  assert.deepEqual([paper.roles.policy, paper.roles.user, paper.roles.analyst, paper.roles.generator], ["vllm", "vllm", "analyst", "analyst"]);
  assert.deepEqual([paper.analysis.labeler, paper.analysis.runs, paper.environments.source, paper.environments.calibration.samples, paper.training.iterations], ["llm", 10, "generated", 16, 40]);
  const toolsandbox = loadPipelineConfig(path.resolve("configs/toolsandbox-qwen3-30b-a3b.json"));
  assert.deepEqual([toolsandbox.target.kind, toolsandbox.target.augmentations, toolsandbox.roles.user, toolsandbox.analysis.labeler], ["toolsandbox", ["none"], "vllm", "llm"]);
});

test("roles must name defined endpoints, and the methods that need a role must have it", () => {
  const endpoints = { judge: { url: "http://localhost:9000/v1", model: "m" } };
  assert.throws(
    () => parsePipelineConfig({ ...minimal, endpoints, roles: { analyst: "nowhere", policy: "judge", user: "worker" } }, "c.json"),
    (error: unknown) =>
      error instanceof PipelineConfigError &&
      error.issues.some((issue) => /^roles\.analyst: endpoint "nowhere" is not defined in endpoints \(defined: judge\)/.test(issue)) &&
      error.issues.some((issue) => /^roles\.user: "worker" serves only the policy and router roles/.test(issue)),
  );
  assert.throws(
    () => parsePipelineConfig({ ...minimal, target: { ...minimal.target, user: "llm" }, analysis: { labeler: "llm" }, environments: { source: "generated" } }, "c.json"),
    (error: unknown) =>
      error instanceof PipelineConfigError &&
      ["roles.user: required: target.user is \"llm\"", "roles.analyst: required: analysis.labeler is \"llm\"", "roles.generator: required: environments.source is \"generated\""].every((issue) => error.issues.includes(issue)),
  );
});

test("a role's API key comes from its environment variable, checked up front, and is never part of the configuration", () => {
  const config = parsePipelineConfig({ ...minimal, endpoints: { judge: { url: "http://localhost:9000/v1", model: "m", apiKeyEnv: "TRACE_TEST_JUDGE_KEY" } }, roles: { analyst: "judge" } }, "c.json");
  assert.throws(() => checkRoleEndpoints(config, {}), (error: unknown) => error instanceof MissingApiKeyError && error.message === "endpoints.judge.apiKeyEnv: environment variable TRACE_TEST_JUDGE_KEY is not set (needed by the analyst role)");
  checkRoleEndpoints(config, { TRACE_TEST_JUDGE_KEY: "k" });
  assert.equal(roleEndpoint(config, "analyst", { TRACE_TEST_JUDGE_KEY: "k" })?.apiKey, "k");
  assert.ok(!JSON.stringify(config).includes("\"k\""));
  assert.equal(roleEndpoint(config, "policy"), undefined, "the policy is the worker by default");
});

test("own targets: the fields each kind needs, the LLM analyst, the judge role", () => {
  const parse = (value: Record<string, unknown>) => () => parsePipelineConfig({ name: "own", model: { path: "m" }, ...value }, "own.json");
  assert.throws(parse({ target: { kind: "module" }, analysis: { labeler: "llm" } }), /target\.module: module \(the target module's file\) is required/);
  assert.throws(parse({ target: { kind: "module", module: "m.ts" } }), /analysis\.labeler: a module target needs the LLM analyst/);
  const mcp = { kind: "mcp", mcp: { command: "node", tasksFile: "t.json", state: "restart", grader: { judge: {} } } };
  assert.throws(parse({ target: mcp, analysis: { labeler: "llm" }, endpoints: { a: { url: "http://127.0.0.1:1/v1", model: "m" } }, roles: { analyst: "a" } }), /roles\.judge: required: target\.mcp\.grader is an LLM judge/);
  assert.throws(parse({ target: { ...mcp, mcp: { ...mcp.mcp, url: "http://127.0.0.1:1/mcp" } }, analysis: { labeler: "llm" } }), /give exactly one of command/);
});

test("routing.multiPartSimilarity: in (0, 1], and only with the retrieval router; merge weights in (0, 4], merge ranks positive integers, TIES or linear merges, TIES densities in (0, 1]", () => {
  const routing = (value: unknown) => parsePipelineConfig({ ...minimal, routing: value }, "c.json");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3 }).routing.multiPartSimilarity, 0.3);
  assert.equal(routing({ method: "retrieval" }).routing.multiPartSimilarity, undefined, "off unless set");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3 }).routing.multiPartRule, "sentences");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, multiPartRule: "capabilities" }).routing.multiPartRule, "capabilities");
  assert.throws(() => routing({ method: "retrieval", multiPartRule: "words" }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.multiPartRule:")));
  for (const bad of [0, 1.5, "0.3"]) assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: bad }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.multiPartSimilarity:")), String(bad));
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeWeight: 1 }).routing.mergeWeight, 1);
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3 }).routing.mergeWeight, undefined, "the worker's 1/n unless set");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeWeight: 1.5 }).routing.mergeWeight, 1.5, "TIES's λ above 1");
  for (const bad of [0, 4.5]) assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeWeight: bad }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.mergeWeight:")), String(bad));
  assert.throws(() => routing({ method: "retrieval", mergeWeight: 1 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => /routing\.mergeWeight: needs routing\.multiPartSimilarity/.test(issue)));
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeRank: 256 }).routing.mergeRank, 256);
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3 }).routing.mergeRank, undefined, "the worker's sum of ranks unless set");
  for (const bad of [0, 2.5]) assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeRank: bad }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.mergeRank:")), String(bad));
  assert.throws(() => routing({ method: "retrieval", mergeRank: 64 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => /routing\.mergeRank: needs routing\.multiPartSimilarity/.test(issue)));
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3 }).routing.mergeMethod, undefined, "TIES unless set");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeMethod: "linear" }).routing.mergeMethod, "linear");
  assert.equal(routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeDensity: 1 }).routing.mergeDensity, 1);
  for (const bad of [0, 1.5]) assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeDensity: bad }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.mergeDensity:")), String(bad));
  assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeMethod: "mean" }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("routing.mergeMethod:")));
  assert.throws(() => routing({ method: "retrieval", mergeMethod: "linear" }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => /routing\.mergeMethod: needs routing\.multiPartSimilarity/.test(issue)));
  assert.throws(() => routing({ method: "retrieval", multiPartSimilarity: 0.3, mergeMethod: "linear", mergeDensity: 0.5 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => /routing\.mergeDensity: is a TIES setting/.test(issue)));
  const compare = (merge: unknown) => parsePipelineConfig({ ...minimal, compare: { merge } }, "c.json").compare!;
  assert.equal(compare({}).merge.weight, undefined, "the merge baseline's own weight, 1/n unless set");
  assert.equal(compare({ weight: 0.5 }).merge.weight, 0.5);
  assert.equal(compare({ weight: 2, rank: 128 }).merge.rank, 128);
  assert.throws(() => compare({ weight: 5 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("compare.merge.weight:")));
  assert.throws(() => compare({ rank: 0 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue.startsWith("compare.merge.rank:")));
  assert.throws(() => routing({ method: "model", multiPartSimilarity: 0.3 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => /routing\.multiPartSimilarity: needs routing\.method "retrieval"/.test(issue)));
});

test("mini: evaluation seeds that overlap the base's SFT demonstrations, or demonstrations over the training tasks, are refused", () => {
  const mini = (target: Record<string, unknown>, sft: Record<string, unknown> = {}) => () => parsePipelineConfig({ name: "m", model: { sft }, target: { kind: "mini", trainingSeeds: 120, evaluationSeedCount: 100, ...target } }, "c.json");
  // The default demonstrations are seeds 1,000,000 … 1,000,399.
  assert.throws(mini({ evaluationSeedStart: 1_000_000 }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue === "target.evaluationSeedStart: evaluation seeds 1000000–1000099 overlap the base's SFT demonstrations (model.sft seeds 1000000–1000399): evaluate on tasks the base was not trained on"));
  assert.throws(mini({ evaluationSeedStart: 999_950 }), /overlap the base's SFT demonstrations/);
  assert.throws(mini({ evaluationSeedStart: 1_000_000 + 12_000 - 1 }, { demonstrations: 12_000 }), /seeds 1000000–1011999/);
  assert.throws(mini({ evaluationSeedStart: 2_000 }, { demonstrations: 8, refresh: { epochs: 1, demonstrations: 8 }, demonstrationSeedStart: 2_050 }), /seeds 2050–2065/, "the refresh epochs' demonstrations count");
  assert.doesNotThrow(mini({ evaluationSeedStart: 1_000_400 }));
  assert.doesNotThrow(mini({ evaluationSeedStart: 999_900 }));
  assert.throws(mini({ evaluationSeedStart: 50_000 }, { demonstrationSeedStart: 100 }), /model\.sft\.demonstrationSeedStart: 100 is below target\.trainingSeeds \(120\)/);
  // Corrections play seeds right after the demonstrations and the 20 mechanics seeds (1,000,420 … 1,000,619 here).
  assert.throws(mini({ evaluationSeedStart: 1_000_500 }, { corrections: { rounds: 2, episodes: 100 } }), (error: unknown) => error instanceof PipelineConfigError && error.issues.some((issue) => issue === "target.evaluationSeedStart: evaluation seeds 1000500–1000599 overlap the base's correction episodes (model.sft.corrections seeds 1000420–1000619): evaluate on tasks the base was not trained on"));
  assert.doesNotThrow(mini({ evaluationSeedStart: 1_000_500 }));
  assert.doesNotThrow(mini({ evaluationSeedStart: 1_000_620 }, { corrections: { rounds: 2, episodes: 100 } }));
  assert.throws(mini({ evaluationSeedStart: 50_000 }, { corrections: { episodes: 0 } }), /model\.sft\.corrections\.episodes/);
  // Without base SFT (a shipped checkpoint) nothing is demonstrated.
  assert.doesNotThrow(() => parsePipelineConfig({ name: "m", model: {}, target: { kind: "mini", evaluationSeedStart: 1_000_000 } }, "c.json"));
});
