// src/runtime/service-sections.ts: composeSections merges per-section handler objects into one service
// implementation, keeping each handler as it is, and stops the start naming the method two sections both define.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { composeSections } from "../../src/runtime/service-sections.js";

const Sections = suite("runtime/service-sections");

Sections("merges every section's methods; each handler is the section's own function, not a copy or wrapper", () => {
  const signIn = () => "signed in";
  const signOut = () => "signed out";
  const listApps = async () => ["app"];
  const composed = composeSections({ signIn, signOut }, { listApps });
  assert.equal(Object.keys(composed).sort(), ["listApps", "signIn", "signOut"]);
  assert.is(composed.signIn, signIn);
  assert.is(composed.signOut, signOut);
  assert.is(composed.listApps, listApps);
  assert.is(composed.signIn(), "signed in");
});

Sections("the result is a new object: the sections are left as they were", () => {
  const first = { a: () => 1 };
  const second = { b: () => 2 };
  const composed = composeSections(first, second);
  assert.is.not(composed, first);
  assert.is.not(composed, second);
  assert.equal(Object.keys(first), ["a"]);
  assert.equal(Object.keys(second), ["b"]);
});

Sections("no sections, or empty ones, compose to an empty implementation", () => {
  assert.equal(composeSections(), {});
  assert.equal(composeSections({}, {}), {});
});

Sections("two sections defining one method stop the start with an error naming that method", () => {
  assert.throws(
    () => composeSections({ getApp: () => 1, listApps: () => 2 }, { createApp: () => 3 }, { getApp: () => 4 }),
    (error: unknown) => error instanceof Error && error.message === "getApp is defined by two sections of the service",
  );
});

Sections("a duplicate is refused even when both sections hold the very same handler", () => {
  const shared = () => "same";
  assert.throws(() => composeSections({ shared }, { shared }), /^shared is defined by two sections of the service$/);
});

Sections.run();
