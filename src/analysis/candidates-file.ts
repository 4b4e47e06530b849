/** `candidate_capabilities.json`: the dictionary of capabilities from discovery, in the TRACE reference format. */
import { z } from "zod";
import { readJsonFile } from "../envs/core/read-json-file.js";

const exampleTrajectorySchema = z.looseObject({
  task_id: z.string(),
  reward: z.number().nullable().optional(),
  note: z.string().optional(),
});

const candidateCapabilitySchema = z.looseObject({
  name: z.string().min(1),
  description: z.string(),
  example_trajectories: z.array(exampleTrajectorySchema).optional(),
});
export type CandidateCapability = z.infer<typeof candidateCapabilitySchema>;

const candidatesFileSchema = z.looseObject({ candidates: z.array(candidateCapabilitySchema) });
export type CandidatesFile = z.infer<typeof candidatesFileSchema>;

/** Reads a candidates file; a malformed file throws `DataFileError` naming the file and the field. */
export function readCandidatesFile(file: string): CandidatesFile {
  return readJsonFile(file, candidatesFileSchema);
}

/** Capability name → description. */
export function candidateDescriptions(file: CandidatesFile): Map<string, string> {
  return new Map(file.candidates.map((candidate) => [candidate.name, candidate.description]));
}
