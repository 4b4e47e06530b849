/** The `UserAddress` that the address-modifying tools build from their arguments. */
import type { RetailAddress } from "./database.js";

/** `UserAddress(address1=…, address2=…, city=…, state=…, country=…, zip=…)`, fields in declared order. */
export function addressFromArguments(args: Record<string, unknown>): RetailAddress {
  return {
    address1: args.address1 as string,
    address2: args.address2 as string,
    city: args.city as string,
    country: args.country as string,
    state: args.state as string,
    zip: args.zip as string,
  };
}
