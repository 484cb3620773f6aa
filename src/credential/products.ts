// The products and environments of apps, as the domain spells them (the spec's `FULL`, `SANDBOX`, ...), and their
// mapping from the protobuf enums the CredentialService answers with: one table each, read by every adapter.
import { Environment, Product as ProductEnum } from "../../gen/partnerapi/v1/credential_service_pb.js";

/** An app's product (spec, "Products"): it decides the scope bundle of its tokens (./scopes.ts). */
export type Product = "FULL" | "ONLINE_ORDER" | "ADSR";

/** A credential's environment: SANDBOX reaches only sandbox merchants, PRODUCTION only live ones. */
export type CredentialEnvironment = "SANDBOX" | "PRODUCTION";

/** The one table of products; the other direction is derived from it. */
const productEnums: Readonly<Record<Product, ProductEnum>> = {
  FULL: ProductEnum.FULL,
  ONLINE_ORDER: ProductEnum.ONLINE_ORDER,
  ADSR: ProductEnum.ADSR,
};
const productNames = new Map(Object.entries(productEnums).map(([name, value]) => [value, name as Product]));

/** The product of a protobuf enum value; undefined for UNSPECIFIED (or a value this build does not know). */
export function productName(product: ProductEnum | undefined): Product | undefined {
  return product === undefined ? undefined : productNames.get(product);
}

/** The protobuf enum value of a product (what the CredentialService answers with). */
export function productEnum(product: Product): ProductEnum {
  return productEnums[product];
}

/** The environment of a protobuf enum value; anything but PRODUCTION is SANDBOX, the one with less reach. */
export function environmentName(environment: Environment | undefined): CredentialEnvironment {
  return environment === Environment.PRODUCTION ? "PRODUCTION" : "SANDBOX";
}

/** The environment a request names; UNSPECIFIED is a bad request there, not a default. */
export function requestedEnvironment(environment: Environment): CredentialEnvironment | undefined {
  return environment === Environment.SANDBOX
    ? "SANDBOX"
    : environment === Environment.PRODUCTION
      ? "PRODUCTION"
      : undefined;
}

/** The protobuf enum value of an environment. */
export function environmentEnum(environment: CredentialEnvironment): Environment {
  return environment === "PRODUCTION" ? Environment.PRODUCTION : Environment.SANDBOX;
}
