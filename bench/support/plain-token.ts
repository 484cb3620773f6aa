// The floors of a mint and of a refresh (issue 43), in a plain node:http process of their own, on the service's
// PostgreSQL (DATABASE_URL) and Redis (REDIS_URL, when set):
// - POST /mint, the plain mint: the body read and parsed (JSON), the same one Redis script counting the caller's
//   minute as the service's throttles do (src/storage/key-value.ts `hit`), one indexed single-row read (a client's
//   secret hash by its id), one RS256 signature of a JWT on the thread pool (crypto.sign with a callback), and a
//   token-shaped JSON answer.
// - POST /refresh, the plain refresh: the plain mint, with the row read by the presented token's SHA-256 (a form
//   body, as the token endpoint takes it), and then one committed statement that rotates that row out and inserts
//   its successor (an UPDATE and an INSERT in one statement, as the service's rotation is), answering the successor.
// Its tables are scratch copies of the real ones' shapes and indexes (`like ... including all`: control.refresh_tokens
// for the rotation), made in the benchmark's database and dropped on SIGTERM. FAMILIES (32) refresh tokens are
// seeded, and CLIENT_ID is one of its clients; prints {"port", "refreshTokens"} when it listens.
import http from "node:http";
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import postgres from "postgres";
import { createRedisStore } from "../../src/storage/key-value.js";
import { rateWindowMs } from "../../src/gateway/rate-limiter.js";
import { silentLogger } from "../../src/runtime/logger.js";

const url = process.env["DATABASE_URL"];
if (!url) throw new Error("DATABASE_URL: the plain mint and refresh read and write PostgreSQL");
const families = Number(process.env["FAMILIES"] ?? 32);
const sql = postgres(url, { max: 10, onnotice: () => {} });
const suffix = process.pid;
const clients = `bench_plain_clients_${suffix}`;
const tokens = `bench_plain_refresh_${suffix}`;
await sql`create table ${sql(clients)} (client_id text primary key, secret_hash bytea not null)`;
// A thousand clients, CLIENT_ID (the mint's caller) among them.
await sql`insert into ${sql(clients)} select 'lp_app_pk' || g, sha256(convert_to('secret' || g, 'UTF8')) from generate_series(1, 999) g`;
await sql`insert into ${sql(clients)} values (${process.env["CLIENT_ID"] ?? "bench"}, ${randomBytes(32)})`;
await sql`analyze ${sql(clients)}`;
await sql`create table ${sql(tokens)} (like control.refresh_tokens including all)`;

const hash = (token: string) => createHash("sha256").update(token, "utf8").digest();
const newToken = () => `lp_rt_pk_${randomBytes(32).toString("base64url")}`;
const refreshTokens = Array.from({ length: families }, newToken);
await sql`
  insert into ${sql(tokens)} (token_hash, family_id, generation, expires_at)
  select decode(h, 'hex'), ordinality, 1, now() + interval '30 days'
  from unnest(${refreshTokens.map((token) => hash(token).toString("hex"))}::text[]) with ordinality h`;
await sql`analyze ${sql(tokens)}`;

const redisUrl = process.env["REDIS_URL"] || undefined;
const limits = redisUrl
  ? await createRedisStore({ url: redisUrl, logger: silentLogger, prefix: `bench-plain-token-${process.pid}:` })
  : undefined;
const countCall = async (who: string) => {
  if (!limits) return;
  const index = Math.floor(Date.now() / rateWindowMs);
  await limits.hit(`token-rate:${who}:${index}`, (index + 2) * rateWindowMs);
};

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const header = Buffer.from(JSON.stringify({ alg: "RS256", typ: "at+jwt", kid: "bench" })).toString("base64url");
/** An access token's JWT, signed on the thread pool. */
const accessToken = (subject: string) =>
  new Promise<string>((resolve, reject) => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: "http://127.0.0.1/",
      aud: "partner-api",
      sub: subject,
      client_id: subject,
      company_id: "900000123",
      region: "uk",
      scope: "items.read orders.read orders.write",
      iat: now,
      exp: now + 3600,
      jti: randomBytes(16).toString("base64url"),
    };
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    sign("sha256", Buffer.from(input), privateKey, (error, signature) =>
      error ? reject(error) : resolve(`${input}.${signature.toString("base64url")}`),
    );
  });
const answer = (access: string, refresh?: string) =>
  JSON.stringify({
    access_token: access,
    token_type: "Bearer",
    expires_in: 3600,
    scope: "items.read orders.read orders.write",
    ...(refresh ? { refresh_token: refresh } : {}),
  });

async function mint(body: string): Promise<string> {
  const { client_id: clientId } = JSON.parse(body) as { client_id: string };
  await countCall(clientId);
  const [row] = await sql`select secret_hash from ${sql(clients)} where client_id = ${clientId}`;
  if (!row) throw new Error("no such client");
  return answer(await accessToken(clientId));
}

async function refresh(body: string): Promise<string> {
  const form = new URLSearchParams(body);
  const presented = form.get("refresh_token") ?? "";
  const clientId = form.get("client_id") ?? "basic";
  await countCall(clientId);
  const presentedHash = hash(presented);
  const [row] = await sql<Array<{ family_id: number; generation: number }>>`
    select family_id, generation from ${sql(tokens)} where token_hash = ${presentedHash} and rotated_at is null`;
  if (!row) throw new Error("no live token");
  const access = await accessToken(clientId);
  const successor = newToken();
  const successorHash = hash(successor);
  const now = new Date();
  const [rotated] = await sql`
    with rotated as (
      update ${sql(tokens)} set rotated_at = ${now}, successor_hash = ${successorHash}
      where token_hash = ${presentedHash} and rotated_at is null and expires_at > ${now}
      returning family_id, generation)
    insert into ${sql(tokens)} (token_hash, family_id, generation, created_at, expires_at)
    select ${successorHash}, family_id, generation + 1, ${now}, ${new Date(now.getTime() + 30 * 86_400_000)} from rotated
    returning family_id`;
  if (!rotated) throw new Error("not rotated");
  return answer(access, successor);
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    (request.url === "/refresh" ? refresh(body) : mint(body)).then(
      (text) => {
        response.writeHead(200, {
          "Content-Type": "application/json",
          "Cache-Control": "no-store",
          "Content-Length": String(Buffer.byteLength(text)),
        });
        response.end(text);
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port, refreshTokens })}\n`),
);
process.on("SIGTERM", () =>
  server.close(
    () =>
      void sql`drop table if exists ${sql(tokens)}, ${sql(clients)}`
        .then(() => Promise.all([sql.end(), limits?.close()]))
        .finally(() => process.exit(0)),
  ),
);
