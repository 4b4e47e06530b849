/** `get_order_details`, `get_product_details`, `get_user_details`: one record's `model_dump()`. */
import { pythonJsonDumps } from "../../core/python-json.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import { fileOrder, inFileOrder } from "./file-order.js";
import { isRetailFloat } from "./float-paths.js";
import { getOrder, getProduct, getUser, type RetailState } from "./lookups.js";
import { dumpProduct, dumpUser, dumpVariant } from "./model-dump.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty, userIdProperty } from "./record-id-properties.js";

/** The order; `Order not found` otherwise. */
export const getOrderDetails: ToolDefinition<RetailState> = {
  name: "get_order_details",
  kind: "read",
  description: "Get the status and details of an order.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    return orderResult(state, orderId, getOrder(state, orderId));
  },
};

/**
 * The product; `Product not found` otherwise. When the file order of `db.json` is known (`file-order.ts`), the
 * result is serialised here with the variants in that order, which a JavaScript object cannot hold.
 */
export const getProductDetails: ToolDefinition<RetailState> = {
  name: "get_product_details",
  kind: "read",
  description: "Get the inventory details of a product.",
  parameters: parametersSchema({
    product_id: stringProperty(
      "The product id, such as '6086499569'. Be careful the product id is different from the item id.",
      "Product Id",
    ),
  }),
  run(state, args) {
    const productId = args.product_id as string;
    const product = getProduct(state, productId);
    const known = fileOrder(state.base)?.variantIds.get(productId);
    if (known === undefined) return dumpProduct(product);
    const variants = inFileOrder(Object.keys(product.variants), known).map((id) => {
      const variant = dumpVariant(product.variants[id] as (typeof product.variants)[string]);
      return `${pythonJsonDumps(id)}: ${pythonJsonDumps(variant, (path) => isRetailFloat(["variants", id, ...path]))}`;
    });
    const head = `{"name": ${pythonJsonDumps(product.name)}, "product_id": ${pythonJsonDumps(product.product_id)}`;
    return `${head}, "variants": {${variants.join(", ")}}}`;
  },
};

/** The user; `User not found` otherwise. */
export const getUserDetails: ToolDefinition<RetailState> = {
  name: "get_user_details",
  kind: "read",
  description: "Get the details of a user, including their orders.",
  parameters: parametersSchema({
    user_id: userIdProperty,
  }),
  run(state, args) {
    const userId = args.user_id as string;
    return dumpUser(getUser(state, userId));
  },
};
