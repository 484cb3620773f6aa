// What the example app runs with: by default the demo world's FULL app (npm start -- --demo writes
// DATA_DIR/demo.json), its sandbox pair unless EXAMPLE_ENVIRONMENT=production; every value can be given instead.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface ExampleSettings {
  /** {base_url}: the public front, no path. */
  baseUrl: string;
  /** The consent site. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Registered on the app; the example serves its path and listens on its port. */
  redirectUri: string;
  environment: "sandbox" | "production";
  /**
   * EXAMPLE_DPOP=1: the merchant's tokens are bound to a key the example makes at start (DPoP, RFC 9449) and the
   * authorization request is pushed first (PAR, RFC 9126); a copied token is then useless without that key.
   */
  dpop?: boolean;
  /** Who can sign in on the consent screen (shown on the start page; the password stays in demo.json). */
  loginHint?: string;
  /** The ONLINE_ORDER app's sandbox pair and the sandbox merchant it orders from: the "place an order" page. */
  onlineOrder?: { clientId: string; clientSecret: string; merchantId: number };
}

interface DemoFile {
  baseUrl: string;
  authUrl: string;
  redirectUri: string;
  apps: {
    full: {
      sandbox: { clientId: string; clientSecret: string };
      production: { clientId: string; clientSecret: string };
    };
    onlineOrder?: { sandbox: { clientId: string; clientSecret: string } };
  };
  merchants: {
    sandbox: Array<{ companyId: number; owner: { email: string } }>;
    live: Array<{ owner: { email: string } }>;
  };
}

/**
 * Reads demo.json from DATA_DIR (default `.data`) and overrides each value from the environment: BASE_URL,
 * AUTH_URL, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI. Without demo.json every one of them is required. The "place an
 * order" page uses the ONLINE_ORDER app's sandbox pair and the first sandbox merchant (ORDER_CLIENT_ID,
 * ORDER_CLIENT_SECRET, ORDER_MERCHANT_ID override them); without them the page is not offered.
 */
export async function loadExampleSettings(env: NodeJS.ProcessEnv = process.env): Promise<ExampleSettings> {
  const environment = env["EXAMPLE_ENVIRONMENT"] === "production" ? "production" : "sandbox";
  const path = join(env["DATA_DIR"] ?? ".data", "demo.json");
  const demo = await readFile(path, "utf8").then(
    (text) => JSON.parse(text) as DemoFile,
    () => undefined,
  );
  const pair = demo?.apps.full[environment];
  // The demo's owner can approve only the demo's own app: a sandbox client connects only its organization's sandbox
  // merchants (oauth.company_not_eligible otherwise), so another CLIENT_ID gets no sign-in hint from demo.json.
  const demoClient = !env["CLIENT_ID"] || env["CLIENT_ID"] === pair?.clientId;
  const owner = !demoClient
    ? undefined
    : environment === "sandbox"
      ? demo?.merchants.sandbox[0]?.owner
      : demo?.merchants.live[0]?.owner;
  const value = (name: string, fallback: string | undefined): string => {
    const chosen = env[name] || fallback;
    if (!chosen)
      throw new Error(
        `${name} is not set and ${path} does not exist: run \`npm start -- --demo\` first, or set ${name}`,
      );
    return chosen;
  };
  return {
    baseUrl: value("BASE_URL", demo?.baseUrl).replace(/\/+$/, ""),
    authUrl: value("AUTH_URL", demo?.authUrl).replace(/\/+$/, ""),
    clientId: value("CLIENT_ID", pair?.clientId),
    clientSecret: value("CLIENT_SECRET", pair?.clientSecret),
    redirectUri: value("REDIRECT_URI", demo?.redirectUri),
    environment,
    ...(env["EXAMPLE_DPOP"] === "1" ? { dpop: true } : {}),
    ...(owner ? { loginHint: `${owner.email} (its password is in ${path})` } : {}),
    ...onlineOrderOf(env, demo),
  };
}

/** The ONLINE_ORDER app's sandbox pair and merchant, from the environment or demo.json; nothing when either is missing. */
function onlineOrderOf(env: NodeJS.ProcessEnv, demo: DemoFile | undefined): Pick<ExampleSettings, "onlineOrder"> {
  const clientId = env["ORDER_CLIENT_ID"] || demo?.apps.onlineOrder?.sandbox.clientId;
  const clientSecret = env["ORDER_CLIENT_SECRET"] || demo?.apps.onlineOrder?.sandbox.clientSecret;
  const merchantId = Number(env["ORDER_MERCHANT_ID"] || demo?.merchants.sandbox[0]?.companyId);
  return clientId && clientSecret && Number.isSafeInteger(merchantId) && merchantId > 0
    ? { onlineOrder: { clientId, clientSecret, merchantId } }
    : {};
}
