// The console site's server-side sessions: what reaches the key-value store is sealed under a key only the cookie's
// id derives, so a dump of the store yields no token, and an entry opens only for the id that made it.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { createWebSessions, openSession, sealSession, type WebSession } from "../../src/console-site/web-sessions.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createMemoryStore } from "../../src/storage/key-value.js";

const Sessions = suite("console-site/web-sessions");
const tokens = {
  accessToken: "eyJ.access.token",
  refreshToken: "cr_refresh_secret_value",
  accessExpiresAt: 1_800_000_000_000,
};
const storeKey = (id: string) => `console-site:session:${createHash("sha256").update(id).digest("base64url")}`;

Sessions("a created session reads back, and the store holds neither its id nor its tokens in clear", async () => {
  const kv = createMemoryStore({ clock: createManualClock() });
  try {
    const sessions = createWebSessions({ kv, ids: cryptoIds });
    const { id, session } = await sessions.create(tokens, 3600);
    assert.equal(await sessions.read(id), session);
    const stored = await kv.get(storeKey(id));
    assert.ok(stored?.startsWith("v1."));
    for (const secret of [id, tokens.accessToken, tokens.refreshToken, session.csrf])
      assert.not.ok(stored!.includes(secret), secret);
    await sessions.update(id, { ...session, accessToken: "eyJ.next.token" }, 3600);
    assert.equal((await sessions.read(id))?.accessToken, "eyJ.next.token");
    await sessions.destroy(id);
    assert.is(await sessions.read(id), undefined);
  } finally {
    await kv.close();
  }
});

Sessions(
  "an entry opens only for its own id: copied under another id, altered, or stored in clear, it reads as signed out",
  async () => {
    const kv = createMemoryStore({ clock: createManualClock() });
    try {
      const sessions = createWebSessions({ kv, ids: cryptoIds });
      const { id } = await sessions.create(tokens, 3600);
      const other = await sessions.create(tokens, 3600);
      const stored = (await kv.get(storeKey(id)))!;
      await kv.set(storeKey(other.id), stored, 3_600_000);
      assert.is(await sessions.read(other.id), undefined);
      const flipped = stored.slice(0, -2) + (stored.at(-2) === "A" ? "B" : "A") + stored.at(-1);
      await kv.set(storeKey(id), flipped, 3_600_000);
      assert.is(await sessions.read(id), undefined);
      await kv.set(storeKey(id), JSON.stringify({ ...tokens, csrf: "x" }), 3_600_000);
      assert.is(await sessions.read(id), undefined);
    } finally {
      await kv.close();
    }
  },
);

Sessions("sealing is randomized and bound to the id", () => {
  const id = cryptoIds.randomToken(32);
  const session: WebSession = { ...tokens, csrf: cryptoIds.randomToken(32) };
  const a = sealSession(id, session);
  const b = sealSession(id, session);
  assert.is.not(a, b);
  assert.equal(openSession(id, a), session);
  assert.is(openSession(cryptoIds.randomToken(32), a), undefined);
  assert.is(openSession(id, "v1."), undefined);
});

Sessions.run();
