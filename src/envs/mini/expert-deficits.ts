/**
 * The scripted expert's deficits: per episode, each applies independently with its rate, drawn from a generator
 * seeded by the expert's seed, the request's sampling seed and the user's first message, so a demonstration set is
 * reproducible and different tasks draw differently.
 */
import { createModuleSdk } from "../modules/module-sdk.js";
import { ExpertDeficitRateError } from "./expert-deficit-rate-error.js";

/** Per-episode probabilities of the expert's three mistakes. */
export interface ExpertDeficits {
  /** Cancel without looking the order up first (a processed or delivered order gets cancelled). */
  skipPreconditionCheck: number;
  /** Pay with the first listed payment method instead of the one the user named. */
  wrongPaymentMethod: number;
  /** Reply as if done after the first cancellation of a multi-order request. */
  stopAfterFirstChange: number;
}

/** The deficits that apply in one episode. */
export type ActiveDeficits = { [deficit in keyof ExpertDeficits]: boolean };

/** Default rates for demonstrations: each mistake in half of the episodes. */
export const DEFAULT_EXPERT_DEFICITS: Readonly<ExpertDeficits> = { skipPreconditionCheck: 0.5, wrongPaymentMethod: 0.5, stopAfterFirstChange: 0.5 };

/** No mistakes: the expert solves every task. */
export const NO_EXPERT_DEFICITS: Readonly<ExpertDeficits> = { skipPreconditionCheck: 0, wrongPaymentMethod: 0, stopAfterFirstChange: 0 };

/** The names of the deficits, in the order they are drawn. */
const EXPERT_DEFICIT_NAMES: readonly (keyof ExpertDeficits)[] = ["skipPreconditionCheck", "wrongPaymentMethod", "stopAfterFirstChange"];

/** Default rates overridden by `deficits`; throws `ExpertDeficitRateError` for a rate outside [0, 1]. */
export function resolveExpertDeficits(deficits: Partial<ExpertDeficits> = {}): ExpertDeficits {
  const resolved = { ...DEFAULT_EXPERT_DEFICITS, ...deficits };
  for (const name of EXPERT_DEFICIT_NAMES) {
    const rate = resolved[name];
    if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) throw new ExpertDeficitRateError(name, rate);
  }
  return resolved;
}

export interface DrawExpertDeficitsOptions {
  deficits: ExpertDeficits;
  /** The expert's own seed. */
  seed: number;
  /** The sampling seed of the request, when the rollout sets one. */
  requestSeed?: number | undefined;
  /** The user's first message (the task's request). */
  request: string;
}

/** Which deficits apply in the episode that opens with `request`: one draw per deficit, in a fixed order. */
export function drawExpertDeficits(options: DrawExpertDeficitsOptions): ActiveDeficits {
  const sdk = createModuleSdk();
  const key = sdk.hash({ seed: options.seed, requestSeed: options.requestSeed ?? null, request: options.request });
  const random = sdk.random(Number.parseInt(key.slice(0, 8), 16));
  const draw = (name: keyof ExpertDeficits) => random.next() < options.deficits[name];
  return { skipPreconditionCheck: draw("skipPreconditionCheck"), wrongPaymentMethod: draw("wrongPaymentMethod"), stopAfterFirstChange: draw("stopAfterFirstChange") };
}
