// The products and environments of apps, as the domain spells them (the spec's `FULL`, `SANDBOX`, ...), and their
// mapping from the protobuf enums the CredentialService answers with: one table each, read by every adapter.
import { Environment, Product as ProductEnum } from "../../gen/partnerapi/v1/credential_service_pb.js";

/** An app's product (spec, "Products"): it decides the scope bundle of its tokens (./scopes.ts). */
export type Product = "FULL" | "ONLINE_ORDER" | "ADSR";

/** A credential's environment: SANDBOX reaches only sandbox merchants, PRODUCTION only live ones. */
export type CredentialEnvironment = "SANDBOX" | "PRODUCTION";

const productNames: Readonly<Record<ProductEnum, Product | undefined>> = {
  [ProductEnum.UNSPECIFIED]: undefined,
  [ProductEnum.FULL]: "FULL",
  [ProductEnum.ONLINE_ORDER]: "ONLINE_ORDER",
  [ProductEnum.ADSR]: "ADSR",
};

/** The product of a protobuf enum value; undefined for UNSPECIFIED (or a value this build does not know). */
export function productName(product: ProductEnum | undefined): Product | undefined {
  return product === undefined ? undefined : productNames[product];
}

/** The environment of a protobuf enum value; anything but PRODUCTION is SANDBOX, the one with less reach. */
export function environmentName(environment: Environment | undefined): CredentialEnvironment {
  return environment === Environment.PRODUCTION ? "PRODUCTION" : "SANDBOX";
}
