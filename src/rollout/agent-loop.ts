/**
 * The agent loop: policy ↔ environment ↔ user for one episode, following τ²-bench v0.2's `Orchestrator`.
 *
 * Flow: the agent's greeting (`rules.greeting`) opens the conversation (not a step); the user speaks; each agent turn
 * is either text (to the user) or tool calls (all executed by the Episode, one tool message each, then the agent
 * speaks again).
 *
 * Steps (τ² `Orchestrator.step`): a user turn, an agent turn and one environment turn (all tool calls of one agent
 * message together) each count 1. Errors: tool observations with `error: true`, one per failed call. After every
 * step whose next recipient is not the environment (i.e. not after an agent turn with tool calls), τ² checks
 * `steps >= maxSteps` → max_steps, then `errors >= maxErrors` → too_many_errors; these checks run even when the step
 * itself ended the episode, so they override agent_stop / user_stop (too_many_errors winning over max_steps).
 *
 * Deviations, where τ² would raise and abort the whole run: a policy call that throws or an agent message with
 * neither text nor tool calls ends the episode with agent_error; a user that throws or returns empty text ends it with
 * user_error. The error text is kept in the result's `error`. An agent message with the stop token and tool calls
 * stops without executing them (τ² would raise since the last message goes to the environment).
 *
 * Endpoint failures are not the agent's (or the user's) doing: when the policy's or an LLM user's chat endpoint fails
 * (`isEndpointFailure`: no answer after every retry, a refusal such as a context-length overflow, a malformed 2xx),
 * `runEpisode` throws `EpisodeEndpointError` instead of ending the episode, so no caller grades it as a failure.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import { isEndpointFailure } from "../models/endpoint-failure.js";
import type { Environment, Episode } from "../spec/environment.js";
import type { AssistantMessage, Message, ToolMessage } from "../spec/message.js";
import type { Task } from "../spec/task.js";
import type { TerminationReason, Trajectory } from "../spec/trajectory.js";
import type { SimulatedUser } from "./simulated-user.js";
import { TraceError } from "../spec/trace-error.js";

/** Sampling parameters sent with every policy request. */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  logprobs?: boolean;
  /** vLLM: ask for prompt and completion token ids so assistant messages carry `tokens`. */
  returnTokenIds?: boolean;
}

export interface RunEpisodeOptions {
  environment: Environment;
  task: Task;
  policy: ChatClient;
  sampling?: SamplingOptions;
  user: SimulatedUser;
  /** Overrides `environment.rules.maxSteps`. */
  maxSteps?: number;
  /** Overrides `environment.rules.maxErrors`. */
  maxErrors?: number;
  /** Recorded on the trajectory (default 0). */
  trial?: number;
  /** Called once per message as it joins the conversation, greeting included. */
  onMessage?: (message: Message) => void;
}

export interface EpisodeResult {
  trajectory: Trajectory;
  /** Steps as τ² counts them (the greeting excluded). */
  steps: number;
  /** Tool observations with `error: true`. */
  errors: number;
  durationMs: number;
  /** Tokens the policy's server reported for this episode (its `usage` fields, summed over turns). */
  policyUsage: { promptTokens: number; completionTokens: number };
  /** For agent_error / user_error: what went wrong (endpoint failures throw `EpisodeEndpointError` instead). */
  error?: string;
}

type Recipient = "agent" | "user" | "environment";

/** Which side's chat endpoint failed: the policy's, or the simulated user's. */
export type EndpointSide = "policy" | "user";

/**
 * An episode cut short because the policy's or the simulated user's chat endpoint failed (see `isEndpointFailure`);
 * carries where it happened, the conversation so far and the endpoint's error as `cause`. Not a graded episode: a
 * runner records it as failed (and redoes it), training and calibration stop on it.
 */
export class EpisodeEndpointError extends TraceError {
  override readonly name = "EpisodeEndpointError";
  readonly side: EndpointSide;
  readonly environment: string;
  readonly taskId: string;
  readonly trial: number;
  /** Steps taken before the failure. */
  readonly steps: number;
  /** The conversation up to the failure. */
  readonly messages: readonly Message[];

  constructor(
    where: { side: EndpointSide; environment: string; taskId: string; trial: number; steps: number; messages: readonly Message[] },
    options: { cause: unknown },
  ) {
    super(`the ${where.side === "policy" ? "policy" : "user simulator"}'s endpoint failed: ${withRootCause(options.cause)}`, { category: "endpoint", cause: options.cause });
    this.side = where.side;
    this.environment = where.environment;
    this.taskId = where.taskId;
    this.trial = where.trial;
    this.steps = where.steps;
    this.messages = where.messages;
  }

  static override isInstance(value: unknown): value is EpisodeEndpointError {
    return value instanceof Error && value.name === "EpisodeEndpointError";
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** The error's text, plus its deepest cause's message when that says more (fetch's "fetch failed" hides ECONNREFUSED). */
function withRootCause(error: unknown): string {
  const text = errorText(error);
  let root: unknown = error;
  for (let depth = 0; depth < 16 && root instanceof Error && root.cause instanceof Error; depth += 1) root = root.cause;
  return root !== error && root instanceof Error && root.message !== "" && !text.includes(root.message) ? `${text} (${root.message})` : text;
}

function hasText(content: string | null | undefined): boolean {
  return content != null && content.trim() !== "";
}

function policyRequest(options: RunEpisodeOptions, system: string, messages: readonly Message[]): ChatRequest {
  const request: ChatRequest = {
    messages: [{ role: "system", content: system }, ...messages],
    tools: [...options.environment.tools(options.task)],
  };
  const sampling = options.sampling ?? {};
  if (sampling.temperature !== undefined) request.temperature = sampling.temperature;
  if (sampling.topP !== undefined) request.topP = sampling.topP;
  if (sampling.maxTokens !== undefined) request.maxTokens = sampling.maxTokens;
  if (sampling.seed !== undefined) request.seed = sampling.seed;
  if (sampling.logprobs !== undefined) request.logprobs = sampling.logprobs;
  if (sampling.returnTokenIds !== undefined) request.returnTokenIds = sampling.returnTokenIds;
  return request;
}

/**
 * Runs one episode to its end and grades it. A policy or user that fails ends the episode (agent_error / user_error),
 * except when its chat endpoint failed: then it throws `EpisodeEndpointError` (see the module comment).
 */
export async function runEpisode(options: RunEpisodeOptions): Promise<EpisodeResult> {
  const episode = options.environment.start(options.task);
  try {
    return await playEpisode(options, episode);
  } finally {
    await episode.close?.();
  }
}

async function playEpisode(options: RunEpisodeOptions, episode: Episode): Promise<EpisodeResult> {
  const started = performance.now();
  const policyUsage = { promptTokens: 0, completionTokens: 0 };
  const { environment, task, policy, user } = options;
  const rules = environment.rules;
  const maxSteps = options.maxSteps ?? rules.maxSteps;
  const maxErrors = options.maxErrors ?? rules.maxErrors;
  const system = environment.systemPrompt(task);
  const messages: Message[] = [];
  const push = (message: Message) => {
    messages.push(message);
    options.onMessage?.(message);
  };
  const isAgentStop = (content: string | null) =>
    rules.agentStopToken !== undefined && content !== null && content.includes(rules.agentStopToken);
  const isUserStop = (content: string) => rules.userStopTokens.some((token) => content.includes(token));

  let steps = 0;
  let errors = 0;
  let termination: TerminationReason | undefined;
  let failure: string | undefined;
  let pendingCalls: AssistantMessage | undefined;
  const endpointError = (side: EndpointSide, cause: unknown) =>
    new EpisodeEndpointError({ side, environment: environment.name, taskId: task.id, trial: options.trial ?? 0, steps, messages: [...messages] }, { cause });
  // τ²: the greeting is the agent's first message, sent to the user; it is not a step. Without one the user opens.
  let next: Recipient = "user";
  if (rules.greeting !== undefined) push({ role: "assistant", content: rules.greeting });

  while (termination === undefined) {
    if (next === "user") {
      let content: string;
      try {
        content = (await user.respond(messages)).content;
      } catch (error) {
        if (isEndpointFailure(error)) throw endpointError("user", error);
        failure = errorText(error);
        termination = "user_error";
        break;
      }
      if (!hasText(content)) {
        failure = "user sent an empty message";
        termination = "user_error";
        break;
      }
      push({ role: "user", content });
      if (isUserStop(content)) termination = "user_stop";
      next = "agent";
    } else if (next === "agent") {
      let message: AssistantMessage;
      try {
        const completion = await policy.complete(policyRequest(options, system, messages));
        policyUsage.promptTokens += completion.usage.promptTokens;
        policyUsage.completionTokens += completion.usage.completionTokens;
        message = completion.message;
      } catch (error) {
        if (isEndpointFailure(error)) throw endpointError("policy", error);
        failure = errorText(error);
        termination = "agent_error";
        break;
      }
      const calls = message.tool_calls ?? [];
      if (calls.length === 0 && !hasText(message.content)) {
        failure = "agent sent an empty message (no text and no tool calls)";
        termination = "agent_error";
        break;
      }
      push(message);
      if (isAgentStop(message.content)) termination = "agent_stop";
      if (calls.length > 0 && termination === undefined) {
        pendingCalls = message;
        next = "environment";
      } else {
        next = "user";
      }
    } else {
      const calls = pendingCalls?.tool_calls ?? [];
      const batch = episode.executeToolCalls === undefined ? undefined : await episode.executeToolCalls(calls);
      for (const [index, call] of calls.entries()) {
        const result = batch === undefined ? await episode.executeToolCall(call) : batch[index];
        if (result === undefined) throw new Error(`executeToolCalls returned no result for call ${index}`);
        if (result.error) errors += 1;
        const observation: ToolMessage = { role: "tool", tool_call_id: call.id, content: result.content, error: result.error };
        push(observation);
      }
      pendingCalls = undefined;
      next = "agent";
    }
    steps += 1;
    // τ²: limits are checked only when the next message does not go to the environment, and after a stop as well.
    if (next === "environment") continue;
    if (steps >= maxSteps) termination = "max_steps";
    if (errors >= maxErrors) termination = "too_many_errors";
  }

  const reward = await environment.grade(task, messages, termination, episode);
  const trajectory: Trajectory = { environment: environment.name, taskId: task.id, trial: options.trial ?? 0, messages, termination, reward };
  if (options.sampling?.seed !== undefined) trajectory.seed = options.sampling.seed;
  const result: EpisodeResult = { trajectory, steps, errors, durationMs: performance.now() - started, policyUsage };
  if (failure !== undefined) result.error = failure;
  return result;
}
