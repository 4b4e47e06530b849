/** The id parameters that several retail tools take, with τ²-bench's descriptions. */
import type { JsonSchema } from "../../../spec/tool-spec.js";
import { stringProperty } from "../tool-parameters.js";

/** `order_id`, as every order tool describes it. */
export const orderIdProperty: JsonSchema = stringProperty(
  "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.",
  "Order Id",
);

/** `user_id`, as `get_user_details` and `modify_user_address` describe it. */
export const userIdProperty: JsonSchema = stringProperty("The user id, such as 'sara_doe_496'.", "User Id");

/**
 * `payment_method_id`, as `modify_pending_order_items` and `modify_pending_order_payment` describe it (the exchange
 * and return tools break their own wording over lines).
 */
export const paymentMethodIdProperty: JsonSchema = stringProperty(
  "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or " +
    "'credit_card_0000000'. These can be looked up from the user or order details.",
  "Payment Method Id",
);
