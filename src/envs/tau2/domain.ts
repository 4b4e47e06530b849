/** What a τ²-bench domain (airline, retail) provides: its database schema, tools and float layout. */
import type { z } from "zod";
import type { DatabaseBase, DatabaseState } from "../core/copy-on-write-database.js";
import type { FloatPathPredicate } from "../core/python-json.js";
import type { ToolDefinition } from "../core/tool-kit.js";

export type Tau2DomainName = "airline" | "retail";

export interface Tau2Domain<Tables extends Record<string, object> = Record<string, object>> {
  name: Tau2DomainName;
  /** Python class name of the toolkit, used in Python-style argument errors (`AirlineTools`, `RetailTools`). */
  className: string;
  /** Schema of `db.json`: one record map per table. */
  databaseSchema: z.ZodType<{ [Name in keyof Tables]: Record<string, Tables[Name]> }>;
  /** The agent's tools in τ²-bench's order. */
  tools: readonly ToolDefinition<DatabaseState<Tables>>[];
  /** Paths (e.g. `["payment_methods", "gift_card_1", "amount"]`) whose numbers are Python floats in tool output. */
  isFloat: FloatPathPredicate;
  /**
   * Called once with the loaded base and the text of `db.json`, for what `JSON.parse` loses: objects enumerate
   * integer-like keys (e.g. 10-digit product ids) first and ascending, while Python dicts keep file order.
   */
  restoreFileOrder?: (base: DatabaseBase<Tables>, databaseText: string) => void;
}
