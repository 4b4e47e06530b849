/** The retail domain's records (τ²-bench `tau2.domains.retail.data_model`) and a zod schema of its `db.json`. */
import { z } from "zod";

/** A physical address (`UserAddress`), fields in pydantic's declared order. */
export interface RetailAddress {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

/** A purchasable variant of a product (`Variant`); `price` is a Python float. */
export interface RetailVariant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

/** A product type with its variants keyed by item id (`Product`). */
export interface RetailProduct {
  name: string;
  product_id: string;
  variants: Record<string, RetailVariant>;
}

/** `CreditCard` payment method. */
export interface RetailCreditCard {
  source: "credit_card";
  id: string;
  brand: string;
  last_four: string;
}

/** `Paypal` payment method. */
export interface RetailPaypal {
  source: "paypal";
  id: string;
}

/** `GiftCard` payment method; `balance` is a Python float. */
export interface RetailGiftCard {
  source: "gift_card";
  id: string;
  balance: number;
}

/** `PaymentMethod = Union[CreditCard, GiftCard, Paypal]`, told apart by `source`. */
export type RetailPaymentMethod = RetailCreditCard | RetailGiftCard | RetailPaypal;

/** A customer (`User`). */
export interface RetailUser {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: RetailAddress;
  email: string;
  payment_methods: Record<string, RetailPaymentMethod>;
  orders: string[];
}

/** A line of an order (`OrderItem`); `price` is a Python float. */
export interface RetailOrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

/** A shipment of an order (`OrderFullfilment`, τ²'s spelling). */
export interface RetailFulfillment {
  tracking_id: string[];
  item_ids: string[];
}

/** A payment or refund (`OrderPayment`); `amount` is a Python float. */
export interface RetailPayment {
  transaction_type: "payment" | "refund";
  amount: number;
  payment_method_id: string;
}

/** Every `OrderStatus` literal. */
const ORDER_STATUSES = [
  "processed",
  "pending",
  "pending (item modified)",
  "delivered",
  "cancelled",
  "exchange requested",
  "return requested",
] as const;

export type RetailOrderStatus = (typeof ORDER_STATUSES)[number];

/** Every `CancelReason` literal. */
export const CANCEL_REASONS = ["no longer needed", "ordered by mistake"] as const;

export type RetailCancelReason = (typeof CANCEL_REASONS)[number];

/** An order (`Order`). The optional fields are absent in `db.json` and dumped as `null` by pydantic. */
export interface RetailOrder {
  order_id: string;
  user_id: string;
  address: RetailAddress;
  items: RetailOrderItem[];
  status: RetailOrderStatus;
  fulfillments: RetailFulfillment[];
  payment_history: RetailPayment[];
  cancel_reason?: RetailCancelReason | null;
  exchange_items?: string[] | null;
  exchange_new_items?: string[] | null;
  exchange_payment_method_id?: string | null;
  /** A Python float, except the int `0` τ² stores after an exchange of no items. */
  exchange_price_difference?: number | null;
  return_items?: string[] | null;
  return_payment_method_id?: string | null;
}

/** Record type of each retail table. */
export type RetailTables = {
  products: RetailProduct;
  users: RetailUser;
  orders: RetailOrder;
};

const stringMapSchema = z.record(z.string(), z.string());

const addressSchema = z.object({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});

const variantSchema = z.object({
  item_id: z.string(),
  options: stringMapSchema,
  available: z.boolean(),
  price: z.number(),
});

const productSchema = z.object({
  name: z.string(),
  product_id: z.string(),
  variants: z.record(z.string(), variantSchema),
});

const paymentMethodSchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("credit_card"), id: z.string(), brand: z.string(), last_four: z.string() }),
  z.object({ source: z.literal("gift_card"), id: z.string(), balance: z.number() }),
  z.object({ source: z.literal("paypal"), id: z.string() }),
]);

const userSchema = z.object({
  user_id: z.string(),
  name: z.object({ first_name: z.string(), last_name: z.string() }),
  address: addressSchema,
  email: z.string(),
  payment_methods: z.record(z.string(), paymentMethodSchema),
  orders: z.array(z.string()),
});

const orderSchema = z.object({
  order_id: z.string(),
  user_id: z.string(),
  address: addressSchema,
  items: z.array(
    z.object({
      name: z.string(),
      product_id: z.string(),
      item_id: z.string(),
      price: z.number(),
      options: stringMapSchema,
    }),
  ),
  status: z.enum(ORDER_STATUSES),
  fulfillments: z.array(z.object({ tracking_id: z.array(z.string()), item_ids: z.array(z.string()) })),
  payment_history: z.array(
    z.object({
      transaction_type: z.enum(["payment", "refund"]),
      amount: z.number(),
      payment_method_id: z.string(),
    }),
  ),
  cancel_reason: z.enum(CANCEL_REASONS).nullish(),
  exchange_items: z.array(z.string()).nullish(),
  exchange_new_items: z.array(z.string()).nullish(),
  exchange_payment_method_id: z.string().nullish(),
  exchange_price_difference: z.number().nullish(),
  return_items: z.array(z.string()).nullish(),
  return_payment_method_id: z.string().nullish(),
});

/**
 * Schema of the retail `db.json` (`RetailDB`): `{products, users, orders}`, each a map from id to record. Like
 * pydantic, unknown keys are dropped; optional order fields stay absent when absent (tools dump them as `null`).
 */
export const databaseSchema: z.ZodType<{
  products: Record<string, RetailProduct>;
  users: Record<string, RetailUser>;
  orders: Record<string, RetailOrder>;
}> = z.object({
  products: z.record(z.string(), productSchema),
  users: z.record(z.string(), userSchema),
  orders: z.record(z.string(), orderSchema),
});
