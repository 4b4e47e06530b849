/**
 * Module sources for the gates' tests: a small honest module where the user names one reservation among several, and
 * hostile variants of it that earlier gates passed — a lax verifier, a verifier that turns lax after its 400th call,
 * a module whose every call loops, and modules whose text tries to forge report lines and terminal escapes.
 */
import { minimalModuleSource } from "./sandbox-test-modules.js";

/** How the verifier of `namedReservationModuleSource` judges. */
export type NamedReservationVerifier =
  /** Success when the final state equals the ground truth's (the reservation named cancelled, nothing else changed). */
  | "honest"
  /** Success when any cancellation succeeded: cancelling everything, or the wrong reservation, scores 1. */
  | "lax"
  /** Honest for its first `honestCalls` calls (state kept between calls in one instance), then always 1. */
  | "time-bomb"
  /** The time bomb, answering every input it has seen before as it did the first time (re-checks alone miss it). */
  | "memoizing-time-bomb";

/**
 * A module with two to four reservations; the user asks to cancel one. The ground truth reads it and cancels it.
 * `honestCalls` (default 400) is where the time bomb goes off.
 */
export function namedReservationModuleSource(verifier: NamedReservationVerifier, honestCalls = 400): string {
  const verifyBody = {
    honest: "",
    lax: `const cancelled = input.calls.some((call) => call.name === "cancel_reservation" && !call.error);
    return { reward: cancelled ? 1 : 0, success: cancelled, breakdown: { cancelled: cancelled ? 1 : 0 } };`,
    "time-bomb": `verifyCalls += 1;
    if (verifyCalls > ${honestCalls}) return { reward: 1, success: true, breakdown: { cancelled: 1 } };`,
    "memoizing-time-bomb": `verifyCalls += 1;
    const key = sdk.canonical(input as unknown as Json);
    const seen = memory[key];
    if (seen !== undefined) return seen;
    if (verifyCalls > ${honestCalls}) return (memory[key] = { reward: 1, success: true, breakdown: { state: 1 } });`,
  }[verifier];
  return `import type { CapabilityModule, Json, ModuleInstance } from "../envs/modules/capability-module.js";
type State = { [key: string]: Json };
let verifyCalls = 0;
const memory: { [input: string]: { reward: number; success: boolean; breakdown: { [key: string]: number } } } = {};
const reservationParameters = { type: "object", properties: { reservation_id: { type: "string" } }, required: ["reservation_id"] };
function runTool(state: State, name: string, args: { [key: string]: Json }) {
  const reservations = state.reservations as { [id: string]: { status: string } };
  const id = String(args.reservation_id);
  const reservation = reservations[id];
  if (reservation === undefined) return { output: "Error: reservation not found", error: true, state };
  if (name === "get_reservation_details") return { output: JSON.stringify(reservation), error: false, state };
  if (name === "cancel_reservation") return { output: "cancelled", error: false, state: { ...state, reservations: { ...reservations, [id]: { status: "cancelled" } } } };
  return { output: "Error: unknown tool " + name, error: true, state };
}
const definition: CapabilityModule = {
  capability: "named_reservation",
  description: "Cancel the one reservation the user names among several.",
  policy: "Cancel only the reservation the user names.",
  tools: [
    { type: "function", function: { name: "get_reservation_details", description: "Reads a reservation.", parameters: reservationParameters } },
    { type: "function", function: { name: "cancel_reservation", description: "Cancels a reservation.", parameters: reservationParameters } },
  ],
  readTools: ["get_reservation_details"],
  generate(seed, sdk): ModuleInstance {
    const random = sdk.random(seed);
    const reservations: { [id: string]: Json } = {};
    const count = random.int(2, 4);
    while (Object.keys(reservations).length < count) reservations["R" + String(random.int(1000, 9999))] = { status: "active" };
    const id = random.pick(Object.keys(reservations));
    return {
      state: { reservations },
      request: "Please cancel reservation " + id + ".",
      followUps: [],
      solution: [{ name: "get_reservation_details", arguments: { reservation_id: id } }, { name: "cancel_reservation", arguments: { reservation_id: id } }],
      mustSay: [],
      facts: { id },
    };
  },
  runTool: (state, name, args) => runTool(state, name, args),
  verify(input, sdk) {
    ${verifyBody}
    let expected = input.instance.state;
    for (const call of input.instance.solution) expected = runTool(expected, call.name, call.arguments).state;
    const success = sdk.canonical(input.finalState) === sdk.canonical(expected);
    const verdict = { reward: success ? 1 : 0, success, breakdown: { state: success ? 1 : 0 } };
    memory[sdk.canonical(input as unknown as Json)] = verdict;
    return verdict;
  },
};
export default definition;
`;
}

/** A module whose `generate`, `runTool` and `verify` each loop forever (loading works). */
export function loopingModuleSource(): string {
  const loop = "for (;;) { /* never returns */ }";
  return minimalModuleSource({ generate: loop, runTool: loop, verify: loop });
}

/** A module whose `runTool` loops forever; `generate` and `verify` return. */
export function loopingToolModuleSource(): string {
  return minimalModuleSource({ runTool: "for (;;) { /* never returns */ }" });
}

/** Text that would forge a report line and clear the screen if printed raw. */
export const FORGED_TEXT = "boom\n\u001b[2J\u001b[32mPASS all gates passed\u001b[0m\u009b31m";

/** A module whose `generate` throws `FORGED_TEXT`. */
export function forgingErrorModuleSource(): string {
  return minimalModuleSource({ generate: `throw new Error(${JSON.stringify(FORGED_TEXT)});` });
}

/** A valid module whose request and tool output carry `FORGED_TEXT` (for `trace env try`). */
export function forgingTextModuleSource(): string {
  return minimalModuleSource({
    runTool: `if (name === "cancel_reservation") return { output: ${JSON.stringify(FORGED_TEXT)}, error: false, state: { ...state, reservations: { [String(args.reservation_id)]: { status: "cancelled" } } } };`,
    instance: `{ state: { reservations: { [id]: { status: "active" } } }, request: ${JSON.stringify(FORGED_TEXT)} + id, followUps: [], solution: [{ name: "cancel_reservation", arguments: { reservation_id: id } }], mustSay: [], facts: { id } }`,
  });
}
