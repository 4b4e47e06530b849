/** `modify_pending_order_address`: replaces the shipping address of an order whose status contains "pending". */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema } from "../tool-parameters.js";
import { addressFromArguments, addressProperties } from "./address-arguments.js";
import { getOrder, isPendingOrder, type RetailState } from "./lookups.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty } from "./record-id-properties.js";

/** "pending" and "pending (item modified)" orders only ("Non-pending order cannot be modified"). */
export const modifyPendingOrderAddress: ToolDefinition<RetailState> = {
  name: "modify_pending_order_address",
  kind: "write",
  description: "Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
    ...addressProperties,
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    if (!isPendingOrder(getOrder(state, orderId))) throw new ToolError("Non-pending order cannot be modified");
    const order = state.edit("orders", orderId);
    order.address = addressFromArguments(args);
    return orderResult(state, orderId, order);
  },
};
