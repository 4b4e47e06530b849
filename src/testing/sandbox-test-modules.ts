/** Module sources for the sandbox's tests and benchmark: a small valid module and hooks to make it hostile. */

/** Code injected into the minimal module: at top level, or at the start of `generate`, `runTool` or `verify`. */
export interface ModuleHooks {
  topLevel?: string;
  generate?: string;
  runTool?: string;
  verify?: string;
  /** Replaces `generate`'s return expression (`level` holds the difficulty the host passed, if any). */
  instance?: string;
  /** More fields of the definition object (e.g. `difficulty: {…},`). */
  fields?: string;
}

/** A minimal valid capability module (one read tool, one write tool), with optional hostile code injected. */
export function minimalModuleSource(hooks: ModuleHooks = {}): string {
  return `import type { CapabilityModule, ModuleInstance } from "../envs/modules/capability-module.js";
${hooks.topLevel ?? ""}
const definition: CapabilityModule = {
  capability: "minimal_task",
  description: "Cancel the one reservation the user names.",
  policy: "Cancel only the reservation the user asks about.",
  tools: [
    { type: "function", function: { name: "get_reservation_details", description: "Reads a reservation.", parameters: { type: "object", properties: { reservation_id: { type: "string" } }, required: ["reservation_id"] } } },
    { type: "function", function: { name: "cancel_reservation", description: "Cancels a reservation.", parameters: { type: "object", properties: { reservation_id: { type: "string" } }, required: ["reservation_id"] } } },
  ],
  readTools: ["get_reservation_details"],
  ${hooks.fields ?? ""}
  generate(seed, sdk, level?: number): ModuleInstance {
    ${hooks.generate ?? ""}
    const random = sdk.random(seed);
    const id = "R" + String(random.int(1000, 9999));
    return ${hooks.instance ?? `{ state: { reservations: { [id]: { status: "active" } } }, request: "Please cancel reservation " + id + ".", followUps: [], solution: [{ name: "cancel_reservation", arguments: { reservation_id: id } }], mustSay: [], facts: { id } }`};
  },
  runTool(state, name, args, sdk) {
    ${hooks.runTool ?? ""}
    const reservations = state.reservations as { [id: string]: { status: string } };
    const id = String(args.reservation_id);
    const reservation = reservations[id];
    if (reservation === undefined) return { output: "Error: reservation not found", error: true, state };
    if (name === "get_reservation_details") return { output: sdk.canonical(reservation), error: false, state };
    if (name === "cancel_reservation") return { output: "cancelled", error: false, state: { ...state, reservations: { ...reservations, [id]: { status: "cancelled" } } } };
    return { output: "Error: unknown tool " + name, error: true, state };
  },
  verify(input, sdk) {
    ${hooks.verify ?? ""}
    const id = String(input.instance.facts.id);
    const reservations = input.finalState.reservations as { [id: string]: { status: string } };
    const success = reservations[id]?.status === "cancelled" && sdk.hash(input.finalState) !== "";
    return { reward: success ? 1 : 0, success, breakdown: { cancelled: success ? 1 : 0 } };
  },
};
export default definition;
`;
}
