// `npm run bench:dpop`: the gateway's step 1 (src/gateway/token-auth.ts) for a Bearer call against a DPoP call, in
// CPU per call of this process, in the same run: a Bearer call is the access token's check (its RS256 signature
// cached after the first call); a DPoP call adds the proof (node:crypto's ES256 verification of a new proof every call,
// its key's thumbprint, its claims) and the replay cache's SET NX. Proofs are made before the clock starts: their
// cost is the client's. Prints both and their ratio (docs/benchmarks.md, "DPoP").
//
// Knobs: DPOP_CALLS (default 2000), REDIS_URL (default: the in-process store; with Redis the figure includes the
// client side of one round trip per call, and Redis's own CPU is not counted).
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { systemClock } from "../src/runtime/clock.js";
import { silentLogger } from "../src/runtime/logger.js";
import { createMemoryStore, createRedisStore } from "../src/storage/key-value.js";
import { appTokenAudience, createAccessTokenVerifier, signJwt, type AccessTokenClaims } from "../src/token/index.js";
import { accessTokenHash, createDpopVerifier } from "../src/token/dpop-proof.js";
import { createTokenAuth } from "../src/gateway/token-auth.js";

const calls = Number(process.env["DPOP_CALLS"] ?? 2000);
const base = "https://api.example.test/";
const redisUrl = process.env["REDIS_URL"];
const store = redisUrl
  ? await createRedisStore({ url: redisUrl, logger: silentLogger, prefix: `bench_dpop_${randomUUID()}:` })
  : createMemoryStore({ clock: systemClock });

const signing = { kid: "bench", privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey };
const verifier = createAccessTokenVerifier({
  issuer: base,
  audience: appTokenAudience,
  keys: () => signing.privateKey,
  clock: systemClock,
  lifetimeSeconds: 900,
});
const auth = createTokenAuth({
  verifier,
  dpop: { verifier: createDpopVerifier({ store, clock: systemClock }), publicBaseUrl: base },
  logger: silentLogger,
});

const client = await generateKeyPair("ES256", { extractable: true });
const jwk = await exportJWK(client.publicKey);
const { calculateJwkThumbprint } = await import("jose");
const jkt = await calculateJwkThumbprint(jwk, "sha256");
const now = Math.floor(Date.now() / 1000);
const claims = (bound: boolean): AccessTokenClaims => ({
  ...{ iss: base, aud: appTokenAudience, sub: "app_bench", client_id: "lp_app_sbbench", orgId: 1, companyId: 1 },
  ...{ region: "us", product: "FULL", scopes: ["items.read"], env: "SANDBOX", jti: randomUUID(), iat: now },
  exp: now + 900,
  ...(bound ? { cnf: { jkt } } : {}),
});
const bearerToken = signJwt(signing, claims(false));
const dpopToken = signJwt(signing, claims(true));
const ath = accessTokenHash(dpopToken);
const proofs: string[] = [];
for (let n = 0; n <= calls; n++)
  proofs.push(
    await new SignJWT({ jti: randomUUID(), htm: "GET", htu: `${base}v1/items`, iat: now, ath })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
      .sign(client.privateKey),
  );

/** CPU microseconds per call (user + system) of `call` run `calls` times, after one warm-up call. */
async function cpuPerCall(call: (n: number) => Promise<unknown>): Promise<number> {
  await call(calls);
  const before = process.cpuUsage();
  for (let n = 0; n < calls; n++) {
    const result = (await call(n)) as { code?: string };
    if (result.code) throw new Error(`refused: ${result.code}`);
  }
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / calls) * 10) / 10;
}

const bearer = await cpuPerCall(() =>
  auth({ authorization: `Bearer ${bearerToken}`, dpop: undefined, method: "GET", path: "/v1/items" }),
);
const dpop = await cpuPerCall((n) =>
  auth({ authorization: `DPoP ${dpopToken}`, dpop: proofs[n], method: "GET", path: "/v1/items" }),
);
console.log(`gateway step 1, Bearer: ${bearer} µs CPU per call (${calls} calls)`);
console.log(
  `gateway step 1, DPoP:   ${dpop} µs CPU per call (${calls} calls, replay cache: ${redisUrl ? "Redis" : "in process"})`,
);
console.log(`DPoP / Bearer: ${(dpop / bearer).toFixed(1)}x; difference ${Math.round(dpop - bearer)} µs per call`);
await store.close();
