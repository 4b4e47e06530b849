/** A simulated user that plays fixed lines in order, then stops: for tests and offline runs. */
import type { Message } from "../spec/message.js";
import type { SimulatedUser, UserTurn } from "./simulated-user.js";

/** What the scripted user says once its lines are used up (τ²-bench's user stop token). */
export const SCRIPTED_USER_STOP = "###STOP###";

/** Returns `lines[0]`, `lines[1]`, … on successive turns, then `###STOP###` on every turn after. The conversation is ignored. */
export function createScriptedUser(lines: readonly string[]): SimulatedUser {
  const script = [...lines];
  let next = 0;
  return {
    respond(_conversation: readonly Message[]): Promise<UserTurn> {
      const content = next < script.length ? script[next]! : SCRIPTED_USER_STOP;
      next += 1;
      return Promise.resolve({ content });
    },
  };
}
