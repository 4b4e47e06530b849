/** The τ²-bench retail domain (pre-v1.0 toolkit `RetailTools`): schema, the 15 agent tools in τ²'s order, floats. */
import type { Tau2Domain } from "../domain.js";
import { calculateTool as calculate } from "../calculate/calculate.js";
import { cancelPendingOrder } from "./cancel-pending-order.js";
import { databaseSchema, type RetailTables } from "./database.js";
import { exchangeDeliveredOrderItems } from "./exchange-delivered-order-items.js";
import { rememberFileOrder } from "./file-order.js";
import { findUserIdByEmail, findUserIdByNameZip } from "./find-user-id.js";
import { isRetailFloat } from "./float-paths.js";
import { getOrderDetails, getProductDetails, getUserDetails } from "./get-details.js";
import { listAllProductTypes } from "./list-all-product-types.js";
import { modifyPendingOrderAddress } from "./modify-pending-order-address.js";
import { modifyPendingOrderItems } from "./modify-pending-order-items.js";
import { modifyPendingOrderPayment } from "./modify-pending-order-payment.js";
import { modifyUserAddress } from "./modify-user-address.js";
import { returnDeliveredOrderItems } from "./return-delivered-order-items.js";
import { transferToHumanAgents } from "./transfer-to-human-agents.js";

export type { RetailTables } from "./database.js";

/** The retail domain. */
export const retailDomain: Tau2Domain<RetailTables> = {
  name: "retail",
  className: "RetailTools",
  databaseSchema,
  tools: [
    calculate,
    cancelPendingOrder,
    exchangeDeliveredOrderItems,
    findUserIdByNameZip,
    findUserIdByEmail,
    getOrderDetails,
    getProductDetails,
    getUserDetails,
    listAllProductTypes,
    modifyPendingOrderAddress,
    modifyPendingOrderItems,
    modifyPendingOrderPayment,
    modifyUserAddress,
    returnDeliveredOrderItems,
    transferToHumanAgents,
  ],
  isFloat: isRetailFloat,
  restoreFileOrder: rememberFileOrder,
};
