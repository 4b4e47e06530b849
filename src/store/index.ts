/** The trajectory store: episodes, tokens, rewards, labels and metrics in one SQLite file, with JSON Lines export (τ²-bench results files: `src/envs/tau2/results-exchange.ts`). */
export * from "./trajectory-store.js";
export * from "./jsonl-export.js";
export { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";
export type { TurnTokens } from "./token-codec.js";
export * from "./training-episodes.js";
