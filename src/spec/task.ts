/** Tasks as environments expose them to the rollout runner. */

export interface Task {
  id: string;
  /** Instructions for the (simulated) user: what the caller wants and knows. */
  userInstructions: string;
  /** Optional persona of the simulated user. */
  userPersona?: string;
  /** Environment-specific task data, kept verbatim for export. */
  raw?: unknown;
}
