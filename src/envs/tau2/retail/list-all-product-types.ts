/** `list_all_product_types`: `json.dumps({name: product_id}, sort_keys=True)` over all products. */
import { pythonJsonDumps } from "../../core/python-json.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema } from "../tool-parameters.js";
import { fileOrder, inFileOrder } from "./file-order.js";
import { comparePythonStrings, type RetailState } from "./lookups.js";

/**
 * A JSON string mapping product names to ids, keys sorted by code point. With duplicate names the later product in
 * table order wins, as in τ²'s dict comprehension (table order is the file order when known).
 */
export const listAllProductTypes: ToolDefinition<RetailState> = {
  name: "list_all_product_types",
  kind: "read",
  description: "List the name and product id of all product types.\n\nEach product type has a variety of different items with unique item ids and options.\nThere are only 50 product types in the store.",
  parameters: parametersSchema({}),
  run(state) {
    const byName = new Map<string, string>();
    for (const productId of inFileOrder([...state.ids("products")], fileOrder(state.base)?.productIds)) {
      const product = state.get("products", productId);
      if (product !== undefined) byName.set(product.name, product.product_id);
    }
    const entries = [...byName].sort(([left], [right]) => comparePythonStrings(left, right));
    return `{${entries.map(([name, id]) => `${pythonJsonDumps(name)}: ${pythonJsonDumps(id)}`).join(", ")}}`;
  },
};
