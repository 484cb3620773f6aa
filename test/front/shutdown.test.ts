// Graceful shutdown of the front: a request in flight when close() is called still gets its answer, and no new
// connection is accepted meanwhile; a request whose client has gone is still waited for (its handler may still use
// the database the app closes next).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import type { ServiceImpl } from "@connectrpc/connect";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createFrontServer } from "../../src/front/front-server.js";
import { createInProcessCaller } from "../../src/runtime/service-caller.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import http from "node:http";

const Shutdown = suite("front/shutdown");

Shutdown("close() lets the request in flight finish and refuses new connections", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: inFlight, resolve: entered } = Promise.withResolvers<void>();
  const token: Partial<ServiceImpl<typeof TokenService>> = {
    async getJwks() {
      entered();
      await released;
      return { keys: [] };
    },
  };
  const front = createFrontServer({
    services: [
      { service: TokenService, caller: createInProcessCaller(TokenService, token as ServiceImpl<typeof TokenService>) },
    ],
    bodyLimitBytes: 1024,
    trustProxy: [],
    clock: createManualClock(),
    ids: cryptoIds,
    logger: silentLogger,
  });
  const { port } = await front.listen(0, "127.0.0.1");
  const pending = fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`);
  await inFlight;
  const closed = front.close(5_000);
  const refused = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`).then(
    () => false,
    () => true,
  );
  assert.ok(refused, "no new connection while shutting down");
  release();
  const answer = await pending;
  assert.is(answer.status, 200);
  assert.equal(await answer.json(), { keys: [] });
  await closed;
});

Shutdown("close() waits for the handler of a request whose client has gone", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: inFlight, resolve: entered } = Promise.withResolvers<void>();
  let finished = false;
  const { promise: gone, resolve: clientGone } = Promise.withResolvers<void>();
  const token: Partial<ServiceImpl<typeof TokenService>> = {
    async getJwks(_request, context) {
      // The front aborts the call's signal once the response's socket has closed under it.
      context.signal.addEventListener("abort", () => clientGone());
      entered();
      await released;
      finished = true;
      return { keys: [] };
    },
  };
  const front = createFrontServer({
    services: [
      { service: TokenService, caller: createInProcessCaller(TokenService, token as ServiceImpl<typeof TokenService>) },
    ],
    bodyLimitBytes: 1024,
    trustProxy: [],
    clock: createManualClock(),
    ids: cryptoIds,
    logger: silentLogger,
  });
  const { port } = await front.listen(0, "127.0.0.1");
  const request = http.get({ host: "127.0.0.1", port, path: "/.well-known/jwks.json", agent: false });
  request.on("error", () => {});
  await inFlight;
  // The client goes away: its socket closes, the handler still runs.
  request.destroy();
  await gone;
  let closedEarly = false;
  const closed = front.close(60_000).then(() => (closedEarly = !finished));
  // Every socket is gone: a close() that waited for sockets only would be over within these turns.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.not.ok(closedEarly, "close() is still waiting for the handler");
  release();
  await closed;
  assert.ok(finished, "the handler ran to its end");
  assert.not.ok(closedEarly, "close() resolved only after the handler finished");
});

Shutdown.run();
