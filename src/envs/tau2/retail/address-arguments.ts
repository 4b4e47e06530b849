/** The address arguments of the address-modifying tools: their schema properties and the `UserAddress` they build. */
import type { JsonSchema } from "../../../spec/tool-spec.js";
import { stringProperty } from "../tool-parameters.js";
import type { RetailAddress } from "./database.js";

/** The six address properties, in the tools' argument order. */
export const addressProperties: Record<keyof RetailAddress, JsonSchema> = {
  address1: stringProperty("The first line of the address, such as '123 Main St'.", "Address1"),
  address2: stringProperty("The second line of the address, such as 'Apt 1' or ''.", "Address2"),
  city: stringProperty("The city, such as 'San Francisco'.", "City"),
  state: stringProperty("The state, such as 'CA'.", "State"),
  country: stringProperty("The country, such as 'USA'.", "Country"),
  zip: stringProperty("The zip code, such as '12345'.", "Zip"),
};

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
