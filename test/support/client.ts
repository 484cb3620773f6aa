// What the client's real-server tests share: a client of a world's app wired to the test's manual clock (its
// sleep moves that clock, so no real time passes), a fetch that records what went over the wire (the real fetch
// underneath: nothing is mocked), a token store that records and can fail its writes, and the consent run.
import {
  createPartnerClient,
  createMemoryTokenStore,
  type Connection,
  type MerchantTokens,
  type PartnerClient,
  type PartnerClientOptions,
  type TokenStore,
} from "../../src/client/index.js";
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ManualClock } from "../../src/runtime/clock.js";
import { credentialServiceOf, decide, type TestApp, type World } from "./test-app.js";

let serial = 0;

/**
 * An organization with an app (FULL: sandbox client and one redirect URI; ADSR: a sandbox API key) and a sandbox merchant in the UK whose data
 * is seeded (one store, ten categories, twenty items, an employee to attribute writes to) and marked provisioned,
 * because the CredentialService here reaches the region's database. The world has no employee login.
 */
export async function newSeededWorld(
  test: TestApp,
  clock: ManualClock,
  redirectUri: string,
  product: Product = Product.FULL,
): Promise<World & { apiKey?: string }> {
  const credentials = credentialServiceOf(test, clock);
  const name = `client test ${process.pid} ${++serial}`;
  const { organization } = await credentials.createOrganization({ name });
  const organizationId = organization!.organizationId!;
  const { merchant, owner } = await credentials.provisionSandboxMerchant({
    organizationId,
    country: "GB",
    name: `Client shop ${serial}`,
  });
  const created = await credentials.createApp({ organizationId, name: `Client app ${serial}`, product });
  const appId = created.app!.appId!;
  let apiKey: string | undefined;
  if (product === Product.ADSR) {
    const key = await credentials.createApiKey({ appId, name: "client test", environment: Environment.SANDBOX });
    apiKey = key.apiKey!.apiKey;
  } else {
    await credentials.setRedirectUris({ appId, redirectUris: [redirectUri] });
  }
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    organizationId: Number(organizationId),
    appId,
    clientId: created.sandbox!.clientId!,
    clientSecret: created.sandbox!.clientSecret!,
    redirectUri,
    companyId: Number(merchant!.companyId),
    owner: { email: owner!.email!, password: owner!.password! },
    employee: { email: "", password: "" },
  };
}

/** One request as it went over the wire, and its answer's status. */
export interface WireEvent {
  kind: "fetch";
  method: string;
  path: string;
  authorization: string | undefined;
  status: number | "network";
}

export interface StoreEvent {
  kind: "put";
  merchantId: number;
  refreshToken: string | undefined;
  accessToken: string;
}

/** The real fetch, recording each request in `events` (shared with the store, so their order shows). */
export function recordingFetch(events: Array<WireEvent | StoreEvent>): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const event: WireEvent = {
      kind: "fetch",
      method: init?.method ?? "GET",
      path: url.pathname,
      authorization: headers.get("authorization") ?? undefined,
      status: "network",
    };
    events.push(event);
    const response = await fetch(input, init);
    event.status = response.status;
    return response;
  };
}

/** The in-memory store, recording every put; `failPuts` makes put reject (as a database outage would). */
export function recordingStore(
  events: Array<WireEvent | StoreEvent>,
): TokenStore & { failPuts: boolean; inner: TokenStore } {
  const inner = createMemoryTokenStore();
  const store = {
    failPuts: false,
    inner,
    get: (merchantId: number) => inner.get(merchantId),
    async put(merchantId: number, tokens: MerchantTokens) {
      if (store.failPuts) throw new Error("token store unavailable");
      events.push({ kind: "put", merchantId, refreshToken: tokens.refreshToken, accessToken: tokens.accessToken });
      await inner.put(merchantId, tokens);
    },
  };
  return store;
}

export interface ClientHarness {
  client: PartnerClient;
  events: Array<WireEvent | StoreEvent>;
  store: ReturnType<typeof recordingStore>;
  /** Every wait the client asked for, in ms. */
  sleeps: number[];
  /** The requests sent, as "METHOD /path status". */
  wire(): string[];
}

/** A client of `world`'s sandbox app against `test`, on `clock`: its sleep advances the clock by what it asks. */
export function clientFor(
  test: TestApp,
  world: World,
  clock: ManualClock,
  extra: Partial<PartnerClientOptions> = {},
): ClientHarness {
  const events: Array<WireEvent | StoreEvent> = [];
  const store = recordingStore(events);
  const sleeps: number[] = [];
  const client = createPartnerClient({
    baseUrl: test.base,
    authUrl: test.auth,
    clientId: world.clientId,
    clientSecret: world.clientSecret,
    redirectUri: world.redirectUri,
    tokenStore: store,
    fetch: recordingFetch(events),
    clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  const wire = () =>
    events.flatMap((event) => (event.kind === "fetch" ? [`${event.method} ${event.path} ${event.status}`] : []));
  return { client, events, store, sleeps, wire };
}

/** Runs the consent for the client's own authorize URL as the world's owner, and completes it with the client. */
export async function connect(test: TestApp, world: World, client: PartnerClient): Promise<Connection> {
  const pending = await client.startAuthorization();
  const location = await decide(test, world, { extra: Object.fromEntries(new URL(pending.url).searchParams) });
  return client.completeAuthorization(location, pending);
}

/** Moves the clock so the merchant's access token has `secondsLeft` before its `exp`. */
export async function expireSoon(
  store: TokenStore,
  merchantId: number,
  clock: ManualClock,
  secondsLeft: number,
): Promise<void> {
  const stored = await store.get(merchantId);
  if (!stored) throw new Error(`merchant ${merchantId} is not connected`);
  clock.set(stored.accessTokenExpiresAt - secondsLeft * 1000);
}
