/**
 * The LLM analysis of a run (TRACE step 2 with any OpenAI-compatible analyst): discovery once (kept in
 * `candidate_capabilities.json`, reused on resume), labeling in N runs (stored per batch), run files, aggregation.
 * Rerunning the same command resumes: discovery is skipped and only unlabeled (trajectory, run) pairs are requested.
 */
import { createHash } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import type { ChatClient } from "../models/chat-client.js";
import type { EpisodeRecord, TrajectoryStore } from "../store/trajectory-store.js";
import type { AggregationThresholds } from "./aggregate-capabilities.js";
import { analysisPrompt } from "./analysis-prompts.js";
import { aggregateDirectory, CANDIDATES_FILE, type ScoresFile } from "./analysis-directory.js";
import { buildRunFile, type LabeledTrajectory } from "./build-run-file.js";
import { readCandidatesFile, type CandidatesFile } from "./candidates-file.js";
import { CHARACTERS_PER_TOKEN, estimateTokens } from "./context-budget.js";
import { discoverCapabilities } from "./discover-capabilities.js";
import { labelingRunName, labelWithAnalyst } from "./label-with-analyst.js";
import { NoTrajectoriesError } from "./no-trajectories-error.js";
import { renderTrajectory, type RenderOptions } from "../rollout/render-trajectory.js";
import { listRunFiles, runFileName, type LabelingFailure } from "./run-file.js";
import { trajectoryKey } from "./trajectory-key.js";
import { writeJsonFile } from "./write-json-file.js";
import type { CapabilityLabel } from "../store/trajectory-store.js";

/** Room kept in the context for a retry's feedback (the bad reply, shortened, and the list of problems). */
const RETRY_RESERVE_TOKENS = Math.ceil(5000 / CHARACTERS_PER_TOKEN);

export interface AnalystAnalysisOptions {
  store: TrajectoryStore;
  client: ChatClient;
  /** Model name, recorded in the scores. */
  model: string;
  outDirectory: string;
  /** Labeling runs N (paper: 10). */
  runs: number;
  thresholds: AggregationThresholds;
  /** The analyst's context window in tokens. */
  contextTokens: number;
  /** Tokens the analyst may generate per reply. */
  maxOutputTokens: number;
  /** Most trajectories per labeling request. */
  batchSize: number;
  /** Attempts per request (the first one and the retries after an invalid reply). */
  maxAttempts: number;
  temperature?: number;
  /** A capability dictionary to label with instead of discovering one. */
  candidates?: CandidatesFile;
  render?: RenderOptions;
  /** The task's instructions shown to the analyst above a trajectory (the reference pipeline shows them). */
  instructions?: (episode: EpisodeRecord) => string | undefined;
  onProgress?: (line: string) => void;
}

export interface AnalystAnalysisResult {
  scores: ScoresFile;
  candidates: CandidatesFile;
  /** Labeling failures of this invocation, per run. */
  failures: Map<number, LabelingFailure[]>;
}

/** Store run names of an analysis depend on its dictionary, so a new dictionary never reuses old labels. */
export function labelingRunPrefix(candidates: CandidatesFile): string {
  const digest = createHash("sha256").update(JSON.stringify(candidates.candidates.map((candidate) => [candidate.name, candidate.description]))).digest("hex");
  return `llm-${digest.slice(0, 8)}`;
}

function keyed(episode: EpisodeRecord) {
  return { key: trajectoryKey(episode), failed: episode.success !== true, episode: { environment: episode.environment, taskId: episode.taskId, trial: episode.trial } };
}

/** Runs (or resumes) discovery, labeling, run files and aggregation. */
export async function analyzeWithAnalyst(options: AnalystAnalysisOptions): Promise<AnalystAnalysisResult> {
  const progress = options.onProgress ?? (() => undefined);
  const episodes = options.store.listEpisodes({ status: "finished" });
  if (episodes.length === 0) throw new NoTrajectoriesError(options.store.file);
  const trajectories = episodes.map((episode) => ({
    ...renderTrajectory(
      { ...keyed(episode), reward: episode.reward, termination: episode.termination, messages: episode.messages ?? [], rewardInfo: episode.rewardInfo, ...instructionsOf(episode) },
      options.render,
    ),
    episode: keyed(episode).episode,
  }));
  function instructionsOf(episode: EpisodeRecord): { instructions?: string } {
    const text = options.instructions?.(episode);
    return text === undefined ? {} : { instructions: text };
  }
  const candidatesFile = path.join(options.outDirectory, CANDIDATES_FILE);
  const promptBudget = (overhead: string) => options.contextTokens - options.maxOutputTokens - RETRY_RESERVE_TOKENS - estimateTokens(overhead);

  let candidates = options.candidates;
  if (candidates === undefined && existsSync(candidatesFile)) {
    candidates = readCandidatesFile(candidatesFile);
    progress(`discovery: reusing ${candidates.candidates.length} capabilities from ${candidatesFile}`);
  }
  if (candidates === undefined) {
    progress(`discovery: ${trajectories.length} trajectories`);
    candidates = await discoverCapabilities({
      client: options.client,
      trajectories,
      budgetTokens: promptBudget(""),
      maxAttempts: options.maxAttempts,
      maxTokens: options.maxOutputTokens,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    });
    progress(`discovery: ${candidates.candidates.map((candidate) => candidate.name).join(", ")}`);
  }
  writeJsonFile(candidatesFile, candidates);

  const prefix = labelingRunPrefix(candidates);
  const capabilityText = candidates.candidates.map((candidate) => `- ${candidate.name}: ${candidate.description}`).join("\n");
  let done = 0;
  const failures = await labelWithAnalyst({
    store: options.store,
    client: options.client,
    trajectories,
    capabilities: candidates.candidates,
    runs: options.runs,
    runPrefix: prefix,
    budgetTokens: promptBudget(analysisPrompt("labeling", { CAPABILITIES: capabilityText, TRAJECTORY_COUNT: 0, TRAJECTORY_IDS: "", TRAJECTORIES: "" })),
    batchSize: options.batchSize,
    maxAttempts: options.maxAttempts,
    maxTokens: options.maxOutputTokens,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    onBatch: ({ run, keys, ok }) => progress(`labeling run ${run}: ${ok ? "labeled" : "failed"} ${keys.join(", ")} (${(done += ok ? keys.length : 0)} trajectory-runs labeled in this invocation)`),
  });

  const names = candidates.candidates.map((candidate) => candidate.name);
  const written = new Set<string>();
  for (let run = 1; run <= options.runs; run++) {
    const byEpisode = new Map<string, Record<string, CapabilityLabel>>();
    for (const label of options.store.listLabels({ run: labelingRunName(prefix, run) })) {
      const key = trajectoryKey(label);
      const labels = byEpisode.get(key) ?? {};
      labels[label.capability] = label.label;
      byEpisode.set(key, labels);
    }
    const labeled: LabeledTrajectory[] = trajectories.map((trajectory) => ({ key: trajectory.key, failed: trajectory.failed, labels: byEpisode.get(trajectory.key) ?? {} }));
    const file = path.join(options.outDirectory, runFileName(run));
    writeJsonFile(file, buildRunFile({ attempt: run, capabilities: names, trajectories: labeled, failures: failures.get(run) ?? [] }));
    written.add(file);
  }
  // Run files of an earlier analysis with more runs would be aggregated with these: remove them.
  for (const file of listRunFiles(options.outDirectory)) if (!written.has(file)) rmSync(file);
  const scores = aggregateDirectory({ runsDirectory: options.outDirectory, thresholds: options.thresholds, labeler: `llm (${options.model})` });
  return { scores, candidates, failures };
}
