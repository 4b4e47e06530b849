/**
 * The layout of a `trace run` directory, and every artifact in it read and written through its schema (a malformed one
 * is a one-line `RunArtifactError` naming the file and the offending path). Paths recorded inside artifacts are
 * relative to the run directory, so a run directory can be moved; absolute ones written by older runs still resolve.
 *
 * ```
 * config.json                  the resolved configuration (no keys)
 * store.sqlite                 the base policy's rollouts
 * stages/<stage>.json          a finished stage's marker
 * base/, model/                TRACE-mini's base stage and the default checkpoint
 * analysis/                    the LLM analyst's analysis; analysis/reference/ the reference labeler's
 * environments/index.json      the kept capabilities' environments and the skipped ones
 * environments/<capability>/   environment.json; generated: module.ts, report.json
 * adapters/<capability>/       GRPO checkpoints and training.json; adapters/synced/ for an external sampler
 * routing/merged-adapter/      the capability adapters merged, for multi-part requests (routing.multiPartSimilarity)
 * eval/                        routing.json, episodes.sqlite, results.json, report.md
 * compare/                     episodes.sqlite, seed-<N>/<method>/result.json, the comparison tables and curves
 * ```
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { CapabilitySelection } from "../analysis/aggregate-capabilities.js";
import { capabilitySelectionSchema, SCORES_FILE, SELECTED_FILE } from "../analysis/analysis-directory.js";
import { REFERENCE_DIRECTORY } from "../analysis/reference-analysis.js";
import { ENVIRONMENT_REPORT_FILE, environmentReportSchema, MODULE_FILE, type EnvironmentReportFile } from "../synthesis/generation/environment-directory.js";
import { capabilityEnvironmentEntrySchema, environmentIndexSchema, type CapabilityEnvironmentEntry, type EnvironmentIndex } from "./environment-index.js";
import type { EvaluationResults } from "./evaluation-results.js";
import { readJsonArtifact, writeJsonArtifact } from "./json-artifact.js";
import { checkDirectoryPath } from "./path-checks.js";
import { routingFileSchema, type RoutingFile } from "./routing-file.js";
import { stageMarkerSchema, type StageMarker } from "./stage-marker.js";
import { trainedAdapterSchema, type TrainedAdapter } from "./trained-adapter.js";

/** Who labeled an analysis: the LLM analyst (`analysis/`) or the reference labeler (`analysis/reference/`). */
export type AnalysisLabeler = "llm" | "reference";

const ENVIRONMENT_FILE = "environment.json";
const TRAINING_FILE = "training.json";

/** A run directory; `root` as given (relative paths stay relative to the current directory). */
export class RunDirectory {
  constructor(readonly root: string) {}

  /** Creates the directory (with its parents); a path that is a file or lies under one is an `UnusablePathError`. */
  create(): void {
    this.checkPath();
    mkdirSync(this.root, { recursive: true });
  }

  /** Refuses (`UnusablePathError`) a root that is a file or lies under one; a missing directory is fine. */
  checkPath(): void {
    checkDirectoryPath(this.root, "run directory");
  }

  /** `path` relative to the run directory, as artifacts record it. */
  relative(file: string): string {
    return path.relative(path.resolve(this.root), path.resolve(this.root, file));
  }

  /** A path recorded in an artifact (relative to the run directory, or absolute from an older run), resolved. */
  resolve(recorded: string): string {
    return path.resolve(this.root, recorded);
  }

  get configFile(): string {
    return path.join(this.root, "config.json");
  }

  get storeFile(): string {
    return path.join(this.root, "store.sqlite");
  }

  /** TRACE-mini's base stage: demonstrations, SFT state, `sft.json`. */
  get baseDirectory(): string {
    return path.join(this.root, "base");
  }

  /** Where the base checkpoint goes when the configuration names no `model.path`. */
  get defaultModelDirectory(): string {
    return path.join(this.root, "model");
  }

  // Stage markers.

  stageMarkerFile(stage: string): string {
    return path.join(this.root, "stages", `${stage}.json`);
  }

  /** The stage's marker, or undefined when the stage has not finished. */
  readStageMarker(stage: string): StageMarker | undefined {
    const file = this.stageMarkerFile(stage);
    return existsSync(file) ? readJsonArtifact(file, stageMarkerSchema) : undefined;
  }

  /** Records that the stage finished. */
  writeStageMarker(marker: StageMarker): void {
    writeJsonArtifact(this.stageMarkerFile(marker.stage), marker);
  }

  // Analysis.

  /** Where the labeler's analysis goes: `analysis/` (LLM analyst) or `analysis/reference/`. */
  analysisDirectory(labeler: AnalysisLabeler): string {
    const directory = path.join(this.root, "analysis");
    return labeler === "llm" ? directory : path.join(directory, REFERENCE_DIRECTORY);
  }

  /** The analysis directory that has scores (`capability_scores.json`): the LLM analyst's first, else the reference labeler's. */
  scoredAnalysisDirectory(): string | undefined {
    return [this.analysisDirectory("llm"), this.analysisDirectory("reference")].find((candidate) => existsSync(path.join(candidate, SCORES_FILE)));
  }

  /** `selected_capabilities.json` of the labeler's analysis: the kept capabilities. */
  readSelectedCapabilities(labeler: AnalysisLabeler): CapabilitySelection[] {
    return readJsonArtifact(path.join(this.analysisDirectory(labeler), SELECTED_FILE), z.array(capabilitySelectionSchema));
  }

  // Capability environments.

  get environmentIndexFile(): string {
    return path.join(this.root, "environments", "index.json");
  }

  environmentDirectory(capability: string): string {
    return path.join(this.root, "environments", capability);
  }

  /** A generated environment's module. */
  environmentModuleFile(capability: string): string {
    return path.join(this.environmentDirectory(capability), MODULE_FILE);
  }

  /** The index written by the synthesize stage (empty when missing). */
  readEnvironmentIndex(): EnvironmentIndex {
    const file = this.environmentIndexFile;
    return existsSync(file) ? readJsonArtifact(file, environmentIndexSchema) : { environments: [], skipped: [] };
  }

  writeEnvironmentIndex(index: EnvironmentIndex): void {
    writeJsonArtifact(this.environmentIndexFile, index);
  }

  /** `environments/<capability>/environment.json`. */
  readEnvironmentEntry(capability: string): CapabilityEnvironmentEntry {
    return readJsonArtifact(path.join(this.environmentDirectory(capability), ENVIRONMENT_FILE), capabilityEnvironmentEntrySchema);
  }

  writeEnvironmentEntry(entry: CapabilityEnvironmentEntry): void {
    writeJsonArtifact(path.join(this.environmentDirectory(entry.capability), ENVIRONMENT_FILE), entry);
  }

  /** A generated environment's `report.json` (every generation attempt). */
  readEnvironmentReport(capability: string): EnvironmentReportFile {
    return readJsonArtifact(path.join(this.environmentDirectory(capability), ENVIRONMENT_REPORT_FILE), environmentReportSchema);
  }

  /** The file of an index entry's generated module (recorded relative to the run directory). */
  moduleFileOf(entry: CapabilityEnvironmentEntry): string {
    return this.resolve(entry.module);
  }

  // Adapters.

  get adaptersDirectory(): string {
    return path.join(this.root, "adapters");
  }

  /** The capability adapters merged into one, for multi-part requests (`routing.multiPartSimilarity`; written by the route stage). */
  get mergedAdapterDirectory(): string {
    return path.join(this.root, "routing", "merged-adapter");
  }

  /** GRPO's checkpoints of a capability adapter, and its `training.json` once finished. */
  adapterDirectory(capability: string): string {
    return path.join(this.adaptersDirectory, capability);
  }

  /** Where GRPO's adapter versions are saved for an external policy sampler to load. */
  get syncedAdaptersDirectory(): string {
    return path.join(this.adaptersDirectory, "synced");
  }

  trainingFile(capability: string): string {
    return path.join(this.adapterDirectory(capability), TRAINING_FILE);
  }

  /** Whether the capability's adapter finished training. */
  hasTrainedAdapter(capability: string): boolean {
    return existsSync(this.trainingFile(capability));
  }

  /** The capability's trained adapter (its `adapterPath` absolute), or undefined when it has not finished training. */
  readTrainedAdapter(capability: string): TrainedAdapter | undefined {
    const file = this.trainingFile(capability);
    if (!existsSync(file)) return undefined;
    const trained = readJsonArtifact(file, trainedAdapterSchema);
    return { ...trained, adapterPath: this.resolve(trained.adapterPath) };
  }

  /** The trained adapters of the run, in environment order. */
  readTrainedAdapters(): TrainedAdapter[] {
    return this.readEnvironmentIndex().environments.flatMap((entry) => this.readTrainedAdapter(entry.capability) ?? []);
  }

  /** Records a finished adapter; its `adapterPath` (absolute or relative to the run) is written relative to the run directory. */
  writeTrainedAdapter(trained: TrainedAdapter): void {
    writeJsonArtifact(this.trainingFile(trained.capability), { ...trained, adapterPath: this.relative(trained.adapterPath) });
  }

  // Evaluation.

  get routingFile(): string {
    return path.join(this.root, "eval", "routing.json");
  }

  readRoutingFile(): RoutingFile {
    return readJsonArtifact(this.routingFile, routingFileSchema);
  }

  writeRoutingFile(routing: RoutingFile): void {
    writeJsonArtifact(this.routingFile, routing);
  }

  /** The routed agent's episodes, and each adapter's and the base's on held-out seeds. */
  get evaluationStoreFile(): string {
    return path.join(this.root, "eval", "episodes.sqlite");
  }

  get evaluationResultsFile(): string {
    return path.join(this.root, "eval", "results.json");
  }

  writeEvaluationResults(results: EvaluationResults): void {
    writeJsonArtifact(this.evaluationResultsFile, results);
  }

  get evaluationReportFile(): string {
    return path.join(this.root, "eval", "report.md");
  }

  /** TRACE-mini: what explains the base's failed held-out evaluation episodes (`base/failures.json` is the training tasks'). */
  get evaluationFailuresFile(): string {
    return path.join(this.root, "eval", "base-failures.json");
  }

  /** TRACE-mini: the same for the routed agent's failed held-out evaluation episodes (which deficits TRACE left). */
  get evaluationTraceFailuresFile(): string {
    return path.join(this.root, "eval", "trace-failures.json");
  }

  /** The final report (empty before the evaluate stage). */
  readEvaluationReport(): string {
    return existsSync(this.evaluationReportFile) ? readFileSync(this.evaluationReportFile, "utf8") : "";
  }

  writeEvaluationReport(markdown: string): void {
    mkdirSync(path.dirname(this.evaluationReportFile), { recursive: true });
    writeFileSync(this.evaluationReportFile, markdown);
  }

  // Comparison.

  /** `trace compare`'s tables and curves. */
  get compareDirectory(): string {
    return path.join(this.root, "compare");
  }

  /** `trace compare`'s report: the methods' tables (`compare/comparison.md`). */
  get comparisonReportFile(): string {
    return path.join(this.compareDirectory, "comparison.md");
  }

  /** The comparison's report (empty before `trace compare` or the compare stage wrote it). */
  readComparisonReport(): string {
    return existsSync(this.comparisonReportFile) ? readFileSync(this.comparisonReportFile, "utf8") : "";
  }

  /** Every compared method's evaluation episodes. */
  get compareStoreFile(): string {
    return path.join(this.compareDirectory, "episodes.sqlite");
  }

  /** A training seed's methods: `compare/seed-<seed>/<method>/`. */
  compareSeedDirectory(seed: number): string {
    return path.join(this.compareDirectory, `seed-${seed}`);
  }

  /** What a method trained with a seed scored (`result.json`; a rerun skips the method when it exists). */
  compareResultFile(seed: number, method: string): string {
    return path.join(this.compareSeedDirectory(seed), method, "result.json");
  }
}

/** The run directory at `root`. */
export function openRunDirectory(root: string): RunDirectory {
  return new RunDirectory(root);
}
