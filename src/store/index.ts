/** The trajectory store: episodes, tokens, rewards, labels and metrics in one SQLite file, with τ²/JSONL exchange. */
export * from "./trajectory-store.js";
export * from "./exchange.js";
export { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";
export type { TurnTokens } from "./token-codec.js";
