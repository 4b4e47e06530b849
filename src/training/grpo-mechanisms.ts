/**
 * The TRACE reference trainer's GRPO mechanisms (`train/train_grpo.py`) as one configuration, with every default in this
 * zod schema (the pipeline's `training` section embeds it; `runGrpo` parses its `mechanisms` option with it):
 * hints in a share of each group's rollouts, dynamic sampling, dropped information-only turns and truncated earlier
 * tool results. The reference has all four on; so do the defaults.
 */
import { z } from "zod";
import { GrpoMechanismsError } from "./grpo-mechanisms-error.js";

const count = z.number().int().nonnegative();

export const grpoMechanismsSchema = z.strictObject({
  /** Hint injection: the environment's hint in the system prompt of this share of each group's rollouts (rounded), swapped for the plain prompt before the update; 0 turns it off [0.25, the low end of the reference's 0.25–0.5]. */
  hints: z.strictObject({ share: z.number().min(0).max(1).default(0.25) }).prefault({}),
  /** Dynamic sampling: up to `extraRounds` more rounds of G groups until at least `minInformativeShare` × G of the groups sampled have reward variance [2 extra rounds, as the reference's 3 batches; half]. */
  dynamicSampling: z
    .strictObject({
      extraRounds: count.default(2),
      minInformativeShare: z.number().gt(0).max(1).default(0.5),
    })
    .prefault({}),
  /** Assistant turns whose tool calls are all read tools, other than an episode's last turn, carry no loss [true]. */
  dropInformationTurns: z.boolean().default(true),
  /** In each trained turn's context, tool results before its last `keepTurns` assistant turns are cut to `maxCharacters` characters [on: 1 turn, 200 characters]. */
  toolResultTruncation: z
    .strictObject({
      enabled: z.boolean().default(true),
      keepTurns: count.default(1),
      maxCharacters: count.default(200),
    })
    .prefault({}),
});

/** The mechanisms with every default applied. */
export type GrpoMechanisms = z.output<typeof grpoMechanismsSchema>;

/** What a caller may give: any part, the rest defaulted. */
export type GrpoMechanismsInput = z.input<typeof grpoMechanismsSchema>;

/** The mechanisms with defaults applied; a bad value is a `GrpoMechanismsError` naming each offending field. */
export function parseGrpoMechanisms(input: GrpoMechanismsInput | undefined): GrpoMechanisms {
  const result = grpoMechanismsSchema.safeParse(input ?? {});
  if (!result.success) throw new GrpoMechanismsError(input, result.error.issues.map((issue) => `${issue.path.join(".") || "(top level)"}: ${issue.message}`));
  return result.data;
}
