// What the sandbox, API-key and access-request tests share: provisioning through a CredentialService client (the
// test app's, credentialServiceOf in test-app.ts: in process, on the running app's databases and clock), and small
// HTTP helpers.
import { type Environment, MerchantRole, type Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { Credentials } from "./test-app.js";
import { reviewLinks } from "./app-links.js";

let serial = 0;
/** A name unique in this process and run. */
export const unique = (prefix: string) => `${prefix} ${process.pid}-${Date.now()}-${++serial}`;

export interface Org {
  organizationId: bigint;
}

export async function newOrganization(credentials: Credentials): Promise<bigint> {
  const { organization } = await credentials.createOrganization({ name: unique("org") });
  return organization!.organizationId;
}

/** A sandbox merchant of the organization (GB: region uk unless another country is given) and its owner login. */
export async function newSandboxMerchant(credentials: Credentials, organizationId: bigint, country = "GB") {
  const made = await credentials.provisionSandboxMerchant({ organizationId, country, name: unique("sandbox shop") });
  return {
    companyId: Number(made.merchant!.companyId),
    region: made.merchant!.region,
    owner: { email: made.owner!.email, password: made.owner!.password },
  };
}

/** An app of the organization with its sandbox pair; `approve` also gives the production pair. */
export async function newApp(credentials: Credentials, organizationId: bigint, product: Product, approve = false) {
  const created = await credentials.createApp({ organizationId, name: unique("app"), product, ...reviewLinks });
  const appId = created.app!.appId;
  const sandbox = { clientId: created.sandbox!.clientId, clientSecret: created.sandbox!.clientSecret };
  if (!approve) return { appId, sandbox, production: undefined };
  await credentials.submitApp({ appId });
  const { production } = await credentials.approveApp({ appId });
  return { appId, sandbox, production: { clientId: production!.clientId, clientSecret: production!.clientSecret } };
}

/** A live merchant in `region` with owner and employee logins. */
export async function newLiveMerchant(credentials: Credentials, region = "us") {
  const { merchant } = await credentials.createMerchant({ name: unique("live shop"), region });
  const companyId = merchant!.companyId;
  const user = async (role: MerchantRole, who: string) => {
    const made = await credentials.createMerchantUser({
      companyId,
      email: `${who}.${companyId}.${process.pid}.${++serial}@live.test`,
      role,
    });
    return { email: made.user!.email, password: made.user!.password, userId: Number(made.user!.userId) };
  };
  return {
    companyId: Number(companyId),
    region,
    owner: await user(MerchantRole.OWNER, "owner"),
    employee: await user(MerchantRole.EMPLOYEE, "employee"),
  };
}

export async function newApiKey(credentials: Credentials, appId: string, environment: Environment): Promise<string> {
  const made = await credentials.createApiKey({ appId, name: unique("key"), environment });
  return made.apiKey!.apiKey;
}

/** The claims of a JWT, decoded without verification (the tests compare them). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}
