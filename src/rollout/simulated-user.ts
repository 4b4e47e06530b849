/** The user side of a conversation: an LLM user simulator, a scripted user, or a human. */
import type { Message, SampledTokens } from "../spec/message.js";

/** One user turn. */
export interface UserTurn {
  content: string;
  /** Token record when the user is a sampled model and the server returned ids. */
  tokens?: SampledTokens;
}

/** Produces the user's next message from the conversation so far, seen from the agent's side (system prompt excluded). */
export interface SimulatedUser {
  respond(conversation: readonly Message[]): Promise<UserTurn>;
}
