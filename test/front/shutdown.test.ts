// Graceful shutdown of the front: a request in flight when close() is called still gets its answer, and no new
// connection is accepted meanwhile.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ServiceImpl } from "@connectrpc/connect";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createFrontServer } from "../../src/front/front-server.js";
import { createInProcessCaller } from "../../src/runtime/service-caller.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";

const Shutdown = suite("front/shutdown");

Shutdown("close() lets the request in flight finish and refuses new connections", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const token: Partial<ServiceImpl<typeof TokenService>> = {
    async getJwks() {
      entered();
      await released;
      return { keys: [] };
    },
  };
  const front = createFrontServer({
    services: [{ service: TokenService, caller: createInProcessCaller(TokenService, token as ServiceImpl<typeof TokenService>) }],
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

Shutdown.run();
