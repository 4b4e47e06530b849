/** τ²-bench's conversation rules: the agent's greeting, stop tokens, step and error limits, the agent prompt. */
import type { ConversationRules } from "../../spec/environment.js";

export const AGENT_GREETING = "Hi! How can I help you today?";
const AGENT_STOP_TOKEN = "###STOP###";
const USER_STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;
/** τ²-bench's default; the TRACE paper ran with 50. */
export const DEFAULT_MAX_STEPS = 100;
export const DEFAULT_MAX_ERRORS = 10;

/** The conversation rules with optional limits. */
export function tau2ConversationRules(options: { maxSteps?: number; maxErrors?: number } = {}): ConversationRules {
  return {
    greeting: AGENT_GREETING,
    userStopTokens: USER_STOP_TOKENS,
    agentStopToken: AGENT_STOP_TOKEN,
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    maxErrors: options.maxErrors ?? DEFAULT_MAX_ERRORS,
  };
}

/** Whether a user message ends the conversation (τ²'s `UserSimulator.is_stop`). */
export function isUserStop(content: string | null): boolean {
  return content !== null && USER_STOP_TOKENS.some((token) => content.includes(token));
}

/** Whether an assistant message ends the conversation (τ²'s `LLMAgent.is_stop`). */
export function isAgentStop(content: string | null): boolean {
  return content !== null && content.includes(AGENT_STOP_TOKEN);
}

const AGENT_INSTRUCTION = `You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.`;

/** The agent's system prompt as τ²-bench's LLM agent builds it from the domain policy. */
export function agentSystemPrompt(policy: string): string {
  return `<instructions>\n${AGENT_INSTRUCTION}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}
