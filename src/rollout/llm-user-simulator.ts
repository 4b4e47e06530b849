/**
 * τ²-bench's LLM user simulator: a system prompt of the simulation guidelines plus the task's scenario, and the
 * conversation as the user sees it — only user messages and the agent's text messages, with roles flipped so the
 * model speaks as "assistant" for the user.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { DataFileError } from "../envs/core/data-file-error.js";
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import type { Message } from "../spec/message.js";
import type { SimulatedUser } from "./simulated-user.js";

/** The user simulator's system prompt (τ²-bench's `UserSimulator.system_prompt`). */
export function userSimulatorSystemPrompt(guidelines: string, scenario: string): string {
  return `${guidelines}\n\n<scenario>\n${scenario}\n</scenario>`;
}

/** Reads τ²-bench's `simulation_guidelines.md` (or `simulation_guidelines_tools.md`) from `directory`. */
export function readUserSimulatorGuidelines(directory: string, options: { withTools?: boolean } = {}): string {
  const file = path.join(directory, options.withTools ? "simulation_guidelines_tools.md" : "simulation_guidelines.md");
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataFileError(file, [code === "ENOENT" ? "file not found" : (error as Error).message], { cause: error });
  }
}

/** The conversation from the user's side: user turns become "assistant", the agent's text turns become "user". */
export function flipRolesForUser(conversation: readonly Message[]): Message[] {
  const flipped: Message[] = [];
  for (const message of conversation) {
    if (message.role === "user") flipped.push({ role: "assistant", content: message.content });
    else if (message.role === "assistant" && (message.tool_calls?.length ?? 0) === 0 && message.content !== null) {
      flipped.push({ role: "user", content: message.content });
    }
  }
  return flipped;
}

export interface LlmUserSimulatorOptions {
  client: ChatClient;
  guidelines: string;
  /** The task's scenario text (e.g. `Task.userInstructions`). */
  scenario: string;
  sampling?: Omit<ChatRequest, "messages" | "tools">;
}

/** A `SimulatedUser` backed by a chat model (the TRACE paper uses the agent's own model, temperature 0). */
export function createLlmUserSimulator(options: LlmUserSimulatorOptions): SimulatedUser {
  const system: Message = { role: "system", content: userSimulatorSystemPrompt(options.guidelines, options.scenario) };
  return {
    async respond(conversation) {
      const completion = await options.client.complete({ ...options.sampling, messages: [system, ...flipRolesForUser(conversation)] });
      const turn = { content: completion.message.content ?? "" };
      return completion.message.tokens === undefined ? turn : { ...turn, tokens: completion.message.tokens };
    },
  };
}
