/**
 * An episode's trained turns (TRACE reference: `filter_info_gathering_turns`, `compress_tool_results` and the hint
 * swap): the sampled assistant turns, less those that only gather information (every tool call a read tool; never the
 * episode's last turn), each with the prompt it is trained on. That prompt is the sampled one unless the training
 * context differs from the sampling context (the hint swapped for the plain system prompt, earlier tool results
 * truncated): then it is re-rendered with the trainer's chat template; the sampled completion tokens stay as sampled.
 */
import type { ChatTokenize } from "../models/chat-tokenize-client.js";
import type { AssistantMessage, Message, SampledTokens } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";

/** Appended to a shortened tool result (as the reference does). */
export const TRUNCATION_MARK = "... [truncated]";

/** Whether an assistant turn only gathers information: it calls tools, and every one is a read tool. */
export function isInformationTurn(message: AssistantMessage, readTools: ReadonlySet<string>): boolean {
  const calls = message.tool_calls ?? [];
  return calls.length > 0 && calls.every((call) => readTools.has(call.function.name));
}

/**
 * The context with every tool result that comes before its last `keepTurns` assistant messages cut to `maxCharacters`
 * characters (code points) plus `TRUNCATION_MARK`; `truncated` counts the results shortened.
 */
export function truncateToolResults(context: readonly Message[], keepTurns: number, maxCharacters: number): { messages: Message[]; truncated: number } {
  const assistants = context.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const boundary = keepTurns === 0 ? context.length : assistants.length >= keepTurns ? assistants[assistants.length - keepTurns]! : 0;
  let truncated = 0;
  const messages = context.map((message, index): Message => {
    if (message.role !== "tool" || index >= boundary) return message;
    const characters = [...message.content];
    if (characters.length <= maxCharacters) return message;
    truncated += 1;
    return { ...message, content: characters.slice(0, maxCharacters).join("") + TRUNCATION_MARK };
  });
  return { messages, truncated };
}

/** One trained turn: the tokens to train on, and whether its prompt was re-rendered (its sampling logprobs then no longer apply). */
export interface TrainingTurn {
  tokens: SampledTokens;
  rewritten: boolean;
}

export interface TrainingTurnsOptions {
  /** The system prompt the training context starts with (the plain one). */
  systemPrompt: string;
  /** The system prompt the episode was sampled with (the hinted one for a hinted rollout). */
  sampledSystemPrompt: string;
  tools: readonly ToolSpec[];
  /** Turns calling only these are dropped; undefined: the environment does not say, nothing is dropped. */
  readTools?: ReadonlySet<string>;
  dropInformationTurns: boolean;
  truncation: { enabled: boolean; keepTurns: number; maxCharacters: number };
  /** The trainer's chat template (used only for contexts that differ from the sampled one). */
  tokenize: ChatTokenize;
}

export interface TrainingTurns {
  turns: TrainingTurn[];
  /** Sampled turns trained on. */
  kept: number;
  /** Sampled turns dropped as information-only. */
  dropped: number;
  /** Tool results shortened, summed over the trained turns' contexts. */
  truncatedToolResults: number;
}

/** The trained turns of an episode's messages (without the system message, as trajectories store them). */
export async function trainingTurns(messages: readonly Message[], options: TrainingTurnsOptions): Promise<TrainingTurns> {
  const sampled = messages.flatMap((message, index) => (message.role === "assistant" && message.tokens !== undefined ? [index] : []));
  const last = sampled.at(-1);
  const result: TrainingTurns = { turns: [], kept: 0, dropped: 0, truncatedToolResults: 0 };
  for (const index of sampled) {
    const message = messages[index] as AssistantMessage & { tokens: SampledTokens };
    if (options.dropInformationTurns && options.readTools !== undefined && index !== last && isInformationTurn(message, options.readTools)) {
      result.dropped += 1;
      continue;
    }
    result.kept += 1;
    const context = messages.slice(0, index);
    const { messages: trainedContext, truncated } = options.truncation.enabled
      ? truncateToolResults(context, options.truncation.keepTurns, options.truncation.maxCharacters)
      : { messages: [...context], truncated: 0 };
    result.truncatedToolResults += truncated;
    if (truncated === 0 && options.systemPrompt === options.sampledSystemPrompt) {
      result.turns.push({ tokens: message.tokens, rewritten: false });
      continue;
    }
    const promptTokenIds = await options.tokenize([{ role: "system", content: options.systemPrompt }, ...trainedContext], options.tools);
    result.turns.push({ tokens: { ...message.tokens, promptTokenIds }, rewritten: true });
  }
  return result;
}
