// The silent-connection rule on its own (src/storage/redis-silence.ts), over a stand-in for the ioredis client that
// records reconnections: a timeout with no reply since the command was sent drops the connection once; a timeout
// while replies still arrive (a slow command on a live connection), a Redis error reply or an old connection's
// late timeout drops nothing. The real client against a silent path: test/storage/redis-silent.test.ts.
import { EventEmitter } from "node:events";
import * as assert from "uvu/assert";
import { silentLogger } from "../../src/runtime/logger.js";
import { dropSilentConnections } from "../../src/storage/redis-silence.js";
import { suite } from "../support/suite.js";

const Silence = suite("storage/redis-silence");

function standIn() {
  const client = Object.assign(new EventEmitter(), { reconnects: 0, disconnect: () => void client.reconnects++ });
  return { client, watched: dropSilentConnections(client, silentLogger) };
}

const timedOut = () => Promise.reject(new Error("Command timed out"));
/** A command left waiting until `settle` is called with its outcome. */
function waiting() {
  let settle!: (outcome: () => Promise<unknown>) => void;
  const promise = new Promise<() => Promise<unknown>>((resolve) => {
    settle = resolve;
  }).then((outcome) => outcome());
  return { command: () => promise, settle };
}
const failed = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.unreachable("must fail"),
    (error: Error) => error.message,
  );

Silence("a timeout with nothing received since the command was sent drops the connection, once", async () => {
  const { client, watched } = standIn();
  client.emit("connect");
  const first = waiting();
  const second = waiting();
  const answers = [failed(watched(first.command)), failed(watched(second.command))];
  first.settle(timedOut);
  second.settle(timedOut);
  assert.equal(await Promise.all(answers), ["Command timed out", "Command timed out"]);
  assert.is(client.reconnects, 1);
  // On the new connection the rule starts again.
  client.emit("connect");
  assert.is(await failed(watched(timedOut)), "Command timed out");
  assert.is(client.reconnects, 2);
});

Silence("a timeout while replies still arrive on the connection drops nothing", async () => {
  const { client, watched } = standIn();
  client.emit("connect");
  const slow = waiting();
  const answer = failed(watched(slow.command));
  assert.is(await watched(async () => "PONG"), "PONG");
  slow.settle(timedOut);
  assert.is(await answer, "Command timed out");
  assert.is(client.reconnects, 0);
});

Silence("a Redis error reply proves the connection alive; other failures are no timeout", async () => {
  const { client, watched } = standIn();
  client.emit("connect");
  const slow = waiting();
  const answer = failed(watched(slow.command));
  const reply = Object.assign(new Error("WRONGTYPE Operation against a key"), { name: "ReplyError" });
  assert.is(await failed(watched(() => Promise.reject(reply))), "WRONGTYPE Operation against a key");
  slow.settle(timedOut);
  await answer;
  assert.is(await failed(watched(() => Promise.reject(new Error("Stream isn't writeable")))), "Stream isn't writeable");
  assert.is(client.reconnects, 0);
});

Silence("a late timeout of a command sent on an earlier connection does not drop the new one", async () => {
  const { client, watched } = standIn();
  client.emit("connect");
  const old = waiting();
  const answer = failed(watched(old.command));
  client.emit("connect"); // reconnected for another reason (reset, failover)
  old.settle(timedOut);
  await answer;
  assert.is(client.reconnects, 0);
});

Silence.run();
