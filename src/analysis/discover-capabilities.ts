/**
 * Discovery (TRACE step 2, run once): the analyst reads successful and failed trajectories and proposes at most 10
 * general capabilities, each with a snake_case name, a 2–3 sentence description and example trajectories. When the
 * trajectories do not fit one prompt, each part gets its own proposals and a last request merges them.
 */
import type { ChatClient } from "../models/chat-client.js";
import { analysisPrompt } from "./analysis-prompts.js";
import type { CandidateCapability, CandidatesFile } from "./candidates-file.js";
import { batchTrajectories, estimateTokens } from "./context-budget.js";
import { DiscoveryFailedError } from "./discovery-failed-error.js";
import type { RenderedTrajectory } from "../rollout/render-trajectory.js";
import { requestStructured, type Validation } from "./structured-request.js";

/** The paper's cap on the dictionary. */
const MAX_CAPABILITIES = 10;

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export interface DiscoveryOptions {
  client: ChatClient;
  trajectories: readonly RenderedTrajectory[];
  /** Tokens of the model's context available to trajectories in one request. */
  budgetTokens: number;
  maxAttempts: number;
  maxCapabilities?: number;
  temperature?: number;
  maxTokens?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Checks a discovery reply: names, descriptions, example ids that exist, at most `maxCapabilities`, no duplicates. */
export function validateCandidates(value: unknown, keys: ReadonlySet<string>, maxCapabilities: number): Validation<CandidatesFile> {
  if (!isRecord(value) || !Array.isArray(value.candidates)) return { ok: false, problems: ['the reply must be an object with a "candidates" list'] };
  const problems: string[] = [];
  const candidates: CandidateCapability[] = [];
  const names = new Set<string>();
  if (value.candidates.length === 0) problems.push("propose at least one capability");
  if (value.candidates.length > maxCapabilities) problems.push(`propose at most ${maxCapabilities} capabilities, not ${value.candidates.length}`);
  value.candidates.forEach((candidate: unknown, index) => {
    if (!isRecord(candidate)) return problems.push(`candidates[${index}] must be an object`);
    const { name, description } = candidate;
    if (typeof name !== "string" || !SNAKE_CASE.test(name)) return problems.push(`candidates[${index}].name ${JSON.stringify(name)} must be snake_case`);
    if (names.has(name)) return problems.push(`capability ${name} is proposed twice`);
    names.add(name);
    if (typeof description !== "string" || description.trim() === "") return problems.push(`capability ${name} needs a description`);
    const examples = Array.isArray(candidate.example_trajectories) ? candidate.example_trajectories : [];
    const kept = examples.filter(isRecord).map((example) => ({
      task_id: String(example.task_id),
      ...(typeof example.reward === "number" ? { reward: example.reward } : {}),
      ...(typeof example.note === "string" ? { note: example.note } : {}),
    }));
    const unknown = kept.filter((example) => !keys.has(example.task_id)).map((example) => example.task_id);
    if (unknown.length > 0) return problems.push(`capability ${name}: example ids ${unknown.join(", ")} are not trajectory ids`);
    candidates.push({ name, description: description.trim(), example_trajectories: kept });
    return undefined;
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { candidates } };
}

/** Runs discovery; throws `DiscoveryFailedError` when a request never gives a valid dictionary. */
export async function discoverCapabilities(options: DiscoveryOptions): Promise<CandidatesFile> {
  const maxCapabilities = options.maxCapabilities ?? MAX_CAPABILITIES;
  const keys = new Set(options.trajectories.map((trajectory) => trajectory.key));
  const overhead = estimateTokens(analysisPrompt("discovery", { MAX_CAPABILITIES: maxCapabilities, TRAJECTORY_COUNT: 0, TRAJECTORIES: "" }));
  const parts = batchTrajectories(options.trajectories, Math.max(1, options.budgetTokens - overhead), Number.POSITIVE_INFINITY);
  const ask = async (prompt: string): Promise<CandidatesFile> => {
    const outcome = await requestStructured({
      client: options.client,
      prompt,
      validate: (value) => validateCandidates(value, keys, maxCapabilities),
      maxAttempts: options.maxAttempts,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    });
    if (!outcome.ok) throw new DiscoveryFailedError(outcome.problems, outcome.attempts);
    return outcome.value;
  };
  const proposals = await Promise.all(
    parts.map((part) =>
      ask(analysisPrompt("discovery", { MAX_CAPABILITIES: maxCapabilities, TRAJECTORY_COUNT: part.length, TRAJECTORIES: part.map((trajectory) => trajectory.text).join("\n\n") })),
    ),
  );
  if (proposals.length === 1) return proposals[0] as CandidatesFile;
  const listed = proposals.map((proposal, index) => `Part ${index + 1}:\n${JSON.stringify(proposal.candidates, null, 1)}`).join("\n\n");
  return ask(analysisPrompt("discovery-merge", { PART_COUNT: proposals.length, MAX_CAPABILITIES: maxCapabilities, PROPOSALS: listed }));
}
