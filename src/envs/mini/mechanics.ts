/**
 * Mechanics of a TRACE-mini agent, measured apart from task success: on held-out demonstrations, the model is asked
 * for each of the expert's turns with the expert's own conversation so far (greedy), and its answer is checked for
 * (1) well-formed tool calls — of every tool call the model writes (a parsed call, or a `<tool_call>` block the worker
 * could not parse), the share naming a known tool with arguments that parse as a JSON object with every required
 * argument a string — and (2) exact copying — every identifier it writes (`u17`, `#W42`, `card_4821`) appears verbatim
 * earlier in the conversation. Decisions are counted apart: choosing the wrong (but real) payment method, or replying
 * in text where the expert called a tool (`textAtToolTurns`), is not a mechanics failure; writing `card_4812` when only
 * `card_4821` exists is, and so is a garbled call.
 */
import type { ChatClient } from "../../models/chat-client.js";
import type { AssistantMessage, Message } from "../../spec/message.js";
import type { ToolSpec } from "../../spec/tool-spec.js";
import { parseJsonObject } from "./scripted-expert.js";

/** One held-out demonstration: the expert's conversation (system prompt first) and the tools it was offered. */
export interface MechanicsDemonstration {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

/** What `measureMechanics` counts. */
export interface MechanicsReport {
  demonstrations: number;
  /** Expert turns asked about. */
  turns: number;
  /** Expert turns that were a tool call, and how many of the model's answers to them were well-formed tool calls. */
  toolTurns: number;
  validToolCalls: number;
  /** Of those expert tool turns, how many the model answered in plain text instead (a decision, not mechanics). */
  textAtToolTurns: number;
  /** Tool calls the model wrote at any turn (parsed, or a `<tool_call>` block that did not parse), and the well-formed ones. */
  callAttempts: number;
  wellFormedCalls: number;
  /** Identifiers the model wrote, and how many appear verbatim earlier in the conversation. */
  identifiers: number;
  copiedIdentifiers: number;
  /** Turns where the model did what the expert did (same tool and arguments, or a text reply where it replied). */
  sameAction: number;
  /**
   * Turns right after a lookup that showed an order's status, where the flawless expert's next move depends on it
   * (cancel a pending order, leave any other), by whether the order was pending: how many there were and how many the
   * model answered with the expert's action. A decision that reads a tool result, counted apart from the mechanics: a
   * base that looks orders up but acts the same whatever they show (the thirty-first session's b24s5) reads low on one
   * side, and its practice in checking the status then has little to build on. Absent from reports written before
   * the thirty-first session.
   */
  afterStatus?: { pending: StatusTurns; notPending: StatusTurns };
  /** Identifier copying in the model's own sampled episodes on the same seeds (since the thirty-second session; absent when not asked for). */
  sampled?: SampledIdentifierReport;
  /** wellFormedCalls / callAttempts and copiedIdentifiers / identifiers (1 when there is nothing to count). */
  toolCallValidity: number;
  identifierCopying: number;
  /** validToolCalls / toolTurns: a well-formed call where the expert made one (mechanics and the decision to call). */
  callWhenDue: number;
  /** The first few failures, to look at: the expert's move, the model's answer, and what was wrong. */
  examples: { problem: "malformed tool call" | "text instead of a tool call" | "identifier not in the context"; expert: string; answer: string }[];
}

/**
 * Identifier copying in the model's own episodes, sampled (free-running at GRPO's temperature, not teacher-forced):
 * every identifier an assistant message writes, checked against the conversation before that message. The
 * teacher-forced figure asks for one turn after the expert's own conversation, greedy; a base can pass it and still
 * write digits of its own once it samples after its own turns (the thirty-first session's b24s5: 99.8% exact
 * teacher-forced, 87.8% in its own episodes at temperature 1, where the shipped base reads 96.1%).
 */
export interface SampledIdentifierReport {
  episodes: number;
  /** Sampling temperature of the episodes. */
  temperature: number;
  identifiers: number;
  copiedIdentifiers: number;
  /** copiedIdentifiers / identifiers (1 when there is nothing to count). */
  identifierCopying: number;
  /** Episodes in which some identifier the model wrote was not in the conversation before it. */
  episodesWithUnseenIdentifier: number;
  /** The first few identifiers not in the context, with the message that wrote them. */
  examples: { identifier: string; answer: string }[];
}

/** Counts identifier copying over the model's own episodes (each the conversation, system prompt first) sampled at `temperature`. */
export function countSampledIdentifiers(episodes: readonly (readonly Message[])[], temperature: number): SampledIdentifierReport {
  let identifiers = 0;
  let copiedIdentifiers = 0;
  let episodesWithUnseenIdentifier = 0;
  const examples: SampledIdentifierReport["examples"] = [];
  for (const messages of episodes) {
    let context = "";
    let unseen = false;
    for (const message of messages) {
      const text = messageText(message);
      if (message.role === "assistant") {
        for (const identifier of text.match(MINI_IDENTIFIER) ?? []) {
          identifiers += 1;
          if (context.includes(identifier)) copiedIdentifiers += 1;
          else {
            unseen = true;
            if (examples.length < EXAMPLES) examples.push({ identifier, answer: `${message.tool_calls?.map((call) => `${call.function.name}(${call.function.arguments})`).join(" ") ?? ""}${message.content ?? ""}` });
          }
        }
      }
      context += `${text}\n`;
    }
    if (unseen) episodesWithUnseenIdentifier += 1;
  }
  return { episodes: episodes.length, temperature, identifiers, copiedIdentifiers, identifierCopying: identifiers === 0 ? 1 : copiedIdentifiers / identifiers, episodesWithUnseenIdentifier, examples };
}

/** The identifiers `message` writes that do not appear in `context` (the conversation before it). */
export function unseenIdentifiers(context: readonly Message[], message: AssistantMessage): string[] {
  const text = context.map(messageText).join("\n");
  return (written(message).match(MINI_IDENTIFIER) ?? []).filter((identifier) => !text.includes(identifier));
}

/** Turns after a status lookup and how many of them the model answered as the expert did. */
export interface StatusTurns {
  turns: number;
  same: number;
}

/** The status an order lookup returned, when `message` answers a `get_order_details` call of `calls`. */
function lookedUpStatus(message: Message | undefined, calls: ReadonlyMap<string, string>): string | undefined {
  if (message?.role !== "tool" || calls.get(message.tool_call_id) !== "get_order_details") return undefined;
  const status = parseJsonObject(message.content)?.status;
  return typeof status === "string" ? status : undefined;
}

/** How many failure examples a report keeps. */
const EXAMPLES = 12;

/** The identifiers of the TRACE-mini world as they appear in text (global: use with `match`). */
export const MINI_IDENTIFIER = /#W\d+|\bu\d+\b|\b(?:card|gift)_\d+\b/g;

/** Whether `message` is exactly one call of a tool in `tools` with every required argument given as a string. */
function wellFormedCall(message: AssistantMessage, tools: readonly ToolSpec[]): boolean {
  const calls = message.tool_calls ?? [];
  if (calls.length !== 1) return false;
  const call = calls[0]!;
  const tool = tools.find((candidate) => candidate.function.name === call.function.name);
  const parsed = parseJsonObject(call.function.arguments);
  if (tool === undefined || parsed === null) return false;
  const required = (tool.function.parameters as { required?: unknown }).required;
  return (Array.isArray(required) ? required : []).every((name) => typeof parsed[String(name)] === "string");
}

/** Whether the model tried to call a tool: a parsed call, or a `<tool_call>` block left in its text. */
function attemptedCall(message: AssistantMessage): boolean {
  return (message.tool_calls?.length ?? 0) > 0 || (message.content ?? "").includes("<tool_call>");
}

/** The text a message adds to the conversation: a turn's content and tool calls' argument text, or any other message's content. */
function messageText(message: Message): string {
  return message.role === "assistant" ? written(message) : (message.content ?? "");
}

/** The text a message writes: its content and its tool calls' argument text. */
function written(message: AssistantMessage): string {
  return [message.content ?? "", ...(message.tool_calls ?? []).map((call) => call.function.arguments)].join("\n");
}

/** Whether `answer` did what `expert` did: the same tool with the same arguments, or a text reply where the expert replied. */
export function sameAction(answer: AssistantMessage, expert: AssistantMessage): boolean {
  const expertCall = expert.tool_calls?.[0];
  const answerCall = answer.tool_calls?.[0];
  if (expertCall === undefined) return answerCall === undefined && (answer.content ?? "").trim() !== "";
  if (answerCall === undefined || answerCall.function.name !== expertCall.function.name) return false;
  return JSON.stringify(parseJsonObject(answerCall.function.arguments)) === JSON.stringify(parseJsonObject(expertCall.function.arguments));
}

/**
 * Asks `client` (temperature 0, `maxTokens` per answer) for every assistant turn of every demonstration after the
 * first user message, with the expert's conversation before that turn, and counts the mechanics.
 */
export async function measureMechanics(options: { client: ChatClient; demonstrations: readonly MechanicsDemonstration[]; maxTokens: number; model?: string }): Promise<MechanicsReport> {
  const counts = { demonstrations: options.demonstrations.length, turns: 0, toolTurns: 0, validToolCalls: 0, textAtToolTurns: 0, callAttempts: 0, wellFormedCalls: 0, identifiers: 0, copiedIdentifiers: 0, sameAction: 0 };
  const afterStatus = { pending: { turns: 0, same: 0 }, notPending: { turns: 0, same: 0 } };
  const examples: MechanicsReport["examples"] = [];
  const keep = (problem: MechanicsReport["examples"][number]["problem"], expert: AssistantMessage, answer: AssistantMessage) => {
    if (examples.length < EXAMPLES) examples.push({ problem, expert: written(expert), answer: `${answer.tool_calls?.map((call) => `${call.function.name}(${call.function.arguments})`).join(" ") ?? ""}${answer.content ?? ""}` });
  };
  const asks: Promise<void>[] = [];
  for (const demonstration of options.demonstrations) {
    const firstUser = demonstration.messages.findIndex((message) => message.role === "user");
    const calls = new Map(demonstration.messages.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => [call.id, call.function.name] as const) : [])));
    demonstration.messages.forEach((message, index) => {
      if (message.role !== "assistant" || firstUser < 0 || index < firstUser) return;
      const status = lookedUpStatus(demonstration.messages[index - 1], calls);
      const prefix = demonstration.messages.slice(0, index);
      const context = prefix.map(messageText).join("\n");
      asks.push(
        (async () => {
          const { message: answer } = await options.client.complete({
            messages: [...prefix],
            tools: [...demonstration.tools],
            temperature: 0,
            maxTokens: options.maxTokens,
            ...(options.model === undefined ? {} : { model: options.model }),
          });
          counts.turns += 1;
          const wellFormed = wellFormedCall(answer, demonstration.tools);
          const attempted = attemptedCall(answer);
          if (attempted) {
            counts.callAttempts += 1;
            if (wellFormed) counts.wellFormedCalls += 1;
            else keep("malformed tool call", message, answer);
          }
          if ((message.tool_calls?.length ?? 0) > 0) {
            counts.toolTurns += 1;
            if (wellFormed) counts.validToolCalls += 1;
            else if (!attempted) {
              counts.textAtToolTurns += 1;
              keep("text instead of a tool call", message, answer);
            }
          }
          for (const identifier of written(answer).match(MINI_IDENTIFIER) ?? []) {
            counts.identifiers += 1;
            if (context.includes(identifier)) counts.copiedIdentifiers += 1;
            else keep("identifier not in the context", message, answer);
          }
          const same = sameAction(answer, message);
          if (same) counts.sameAction += 1;
          if (status !== undefined) {
            const side = status === "pending" ? afterStatus.pending : afterStatus.notPending;
            side.turns += 1;
            if (same) side.same += 1;
          }
        })(),
      );
    });
  }
  await Promise.all(asks);
  return {
    ...counts,
    afterStatus,
    examples,
    toolCallValidity: counts.callAttempts === 0 ? 1 : counts.wellFormedCalls / counts.callAttempts,
    identifierCopying: counts.identifiers === 0 ? 1 : counts.copiedIdentifiers / counts.identifiers,
    callWhenDue: counts.toolTurns === 0 ? 1 : counts.validToolCalls / counts.toolTurns,
  };
}
