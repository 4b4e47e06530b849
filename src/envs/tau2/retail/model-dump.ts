/**
 * Pydantic `model_dump()` of retail records: every declared field in declared order, absent optional fields as
 * `null`, so tool results serialise exactly as τ²-bench's `Environment.to_json_str`.
 */
import type {
  RetailAddress,
  RetailOrder,
  RetailPaymentMethod,
  RetailProduct,
  RetailUser,
  RetailVariant,
} from "./database.js";

/** `UserAddress.model_dump()`. */
function dumpAddress(address: Readonly<RetailAddress>): RetailAddress {
  return {
    address1: address.address1,
    address2: address.address2,
    city: address.city,
    country: address.country,
    state: address.state,
    zip: address.zip,
  };
}

/** `Variant.model_dump()`. */
export function dumpVariant(variant: Readonly<RetailVariant>): RetailVariant {
  return { item_id: variant.item_id, options: { ...variant.options }, available: variant.available, price: variant.price };
}

/** `Product.model_dump()`; variants in JavaScript key order (see `file-order.ts` for τ²'s order). */
export function dumpProduct(product: Readonly<RetailProduct>): RetailProduct {
  const variants: Record<string, RetailVariant> = {};
  for (const [id, variant] of Object.entries(product.variants)) variants[id] = dumpVariant(variant);
  return { name: product.name, product_id: product.product_id, variants };
}

/** `CreditCard` / `GiftCard` / `Paypal` `.model_dump()`. */
function dumpPaymentMethod(method: Readonly<RetailPaymentMethod>): RetailPaymentMethod {
  switch (method.source) {
    case "credit_card":
      return { source: method.source, id: method.id, brand: method.brand, last_four: method.last_four };
    case "gift_card":
      return { source: method.source, id: method.id, balance: method.balance };
    case "paypal":
      return { source: method.source, id: method.id };
  }
}

/** `User.model_dump()`. */
export function dumpUser(user: Readonly<RetailUser>): RetailUser {
  const paymentMethods: Record<string, RetailPaymentMethod> = {};
  for (const [id, method] of Object.entries(user.payment_methods)) paymentMethods[id] = dumpPaymentMethod(method);
  return {
    user_id: user.user_id,
    name: { first_name: user.name.first_name, last_name: user.name.last_name },
    address: dumpAddress(user.address),
    email: user.email,
    payment_methods: paymentMethods,
    orders: [...user.orders],
  };
}

/** `Order.model_dump()`, with the seven optional fields as `null` when unset. */
export function dumpOrder(order: Readonly<RetailOrder>): Required<RetailOrder> {
  return {
    order_id: order.order_id,
    user_id: order.user_id,
    address: dumpAddress(order.address),
    items: order.items.map((item) => ({
      name: item.name,
      product_id: item.product_id,
      item_id: item.item_id,
      price: item.price,
      options: { ...item.options },
    })),
    status: order.status,
    fulfillments: order.fulfillments.map((fulfillment) => ({
      tracking_id: [...fulfillment.tracking_id],
      item_ids: [...fulfillment.item_ids],
    })),
    payment_history: order.payment_history.map((payment) => ({
      transaction_type: payment.transaction_type,
      amount: payment.amount,
      payment_method_id: payment.payment_method_id,
    })),
    cancel_reason: order.cancel_reason ?? null,
    exchange_items: order.exchange_items === undefined || order.exchange_items === null ? null : [...order.exchange_items],
    exchange_new_items:
      order.exchange_new_items === undefined || order.exchange_new_items === null ? null : [...order.exchange_new_items],
    exchange_payment_method_id: order.exchange_payment_method_id ?? null,
    exchange_price_difference: order.exchange_price_difference ?? null,
    return_items: order.return_items === undefined || order.return_items === null ? null : [...order.return_items],
    return_payment_method_id: order.return_payment_method_id ?? null,
  };
}
