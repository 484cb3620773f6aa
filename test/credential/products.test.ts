// src/credential/products.ts: the products and environments as the domain spells them, mapped from the protobuf
// enums of the CredentialService; an unknown environment means SANDBOX, the one with less reach.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentName, productName } from "../../src/credential/products.js";

const Products = suite("credential/products");

Products("products: FULL, ONLINE_ORDER and ADSR by name; UNSPECIFIED, absent and unknown values have none", () => {
  assert.is(productName(Product.FULL), "FULL");
  assert.is(productName(Product.ONLINE_ORDER), "ONLINE_ORDER");
  assert.is(productName(Product.ADSR), "ADSR");
  assert.is(productName(Product.UNSPECIFIED), undefined);
  assert.is(productName(undefined), undefined);
  assert.is(productName(99 as Product), undefined);
});

Products("environments: only PRODUCTION is PRODUCTION; SANDBOX, UNSPECIFIED, absent and unknown are SANDBOX", () => {
  assert.is(environmentName(Environment.PRODUCTION), "PRODUCTION");
  assert.is(environmentName(Environment.SANDBOX), "SANDBOX");
  assert.is(environmentName(Environment.UNSPECIFIED), "SANDBOX");
  assert.is(environmentName(undefined), "SANDBOX");
  assert.is(environmentName(99 as Environment), "SANDBOX");
});

Products.run();
