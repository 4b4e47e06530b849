/**
 * Fixed policies played directly against a module (no model, no conversation), for the validation gates: the
 * ground-truth solution, a do-nothing policy and a read-only policy. Each returns the verifier's verdict. The
 * adversarial ones (changed argument, unrequested writes) are in `adversarial-policies.ts`.
 */
import type { ModuleInstance, SolutionCall, Verdict } from "./capability-module.js";
import type { ModuleRunner } from "./module-runner.js";
import { checkVerdict } from "./module-verdict.js";
import { verifierInputFromCalls } from "./verifier-input.js";

/** What the ground-truth agent says: every `mustSay` item, or a plain closing line when there is none. */
export function solutionReply(instance: ModuleInstance): string {
  return instance.mustSay.length > 0 ? instance.mustSay.join("\n") : "Your request has been handled.";
}

/** The read-only policy's calls: the solution's calls to read tools (same arguments), in order. */
export function readOnlyCalls(runner: ModuleRunner, instance: ModuleInstance): SolutionCall[] {
  return instance.solution.filter((call) => runner.readTools.includes(call.name));
}

/** Plays `calls` and `replies` on the instance generated from `seed` and verifies. */
async function playPolicy(runner: ModuleRunner, seed: number, choose: (instance: ModuleInstance) => { calls: SolutionCall[]; replies: string[] }): Promise<Verdict> {
  const instance = await runner.generate(seed);
  const { calls, replies } = choose(instance);
  return checkVerdict(await runner.verify(await verifierInputFromCalls(runner, instance, calls, replies)));
}

/** The ground truth: the solution's calls, then a reply stating every `mustSay` item. */
export function playSolution(runner: ModuleRunner, seed: number): Promise<Verdict> {
  return playPolicy(runner, seed, (instance) => ({ calls: instance.solution, replies: [solutionReply(instance)] }));
}

/** What the do-nothing policy says. */
export const DO_NOTHING_REPLY = "I'm sorry, I can't help with that.";

/** What the read-only policy says. */
export const READ_ONLY_REPLY = "I have looked up your details.";

/** No tool calls; a polite non-answer. */
export function playDoNothing(runner: ModuleRunner, seed: number): Promise<Verdict> {
  return playPolicy(runner, seed, () => ({ calls: [], replies: [DO_NOTHING_REPLY] }));
}

/** Only the solution's read-tool calls (possibly none); no writes, no required statements. */
export function playReadOnly(runner: ModuleRunner, seed: number): Promise<Verdict> {
  return playPolicy(runner, seed, (instance) => ({ calls: readOnlyCalls(runner, instance), replies: [READ_ONLY_REPLY] }));
}
