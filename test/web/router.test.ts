// The web kit's router (src/web/router.ts): a table of method + path pattern with named segments; the route and its
// segments, or 405 with the methods of the path (Allow), or 404.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createRouter, route } from "../../src/web/router.js";

const Router = suite("web/router");

const segments = { org: "[1-9]\\d{0,15}", app: "[A-Za-z0-9_-]{1,64}" };

Router("a route's handler and its named segments", () => {
  const router = createRouter({
    segments,
    routes: [
      route("GET", "/", "home"),
      route("GET", "/organizations/{org}/apps/{app}", "app"),
      route("POST", "/organizations/{org}/apps/{app}", "rename"),
    ],
  });
  assert.equal(router.match("GET", "/"), { kind: "route", handler: "home", params: {} });
  assert.equal(router.match("POST", "/organizations/12/apps/a_b-C"), {
    kind: "route",
    handler: "rename",
    params: { org: "12", app: "a_b-C" },
  });
});

Router("a segment takes only its shape, within one segment; other paths are unknown", () => {
  const router = createRouter({ segments, routes: [route("GET", "/organizations/{org}", "org")] });
  for (const path of [
    "/organizations/0",
    "/organizations/x",
    "/organizations/1/2",
    "/organizations/",
    "/Organizations/1",
  ])
    assert.equal(router.match("GET", path), { kind: "not-found" }, path);
  assert.is(router.knows("/organizations/1"), true);
  assert.is(router.knows("/organizations/x"), false);
});

Router("another method: 405 with the path's methods in order; HEAD only when GET answers it", () => {
  const routes = [route("POST", "/apps/{app}/archive", "archive"), route("GET", "/apps/{app}/archive", "page")];
  const plain = createRouter({ segments, routes });
  assert.equal(plain.match("PUT", "/apps/a/archive"), { kind: "method-not-allowed", allow: "GET, POST" });
  assert.equal(plain.match("HEAD", "/apps/a/archive"), { kind: "method-not-allowed", allow: "GET, POST" });
  const withHead = createRouter({ segments, headAsGet: true, routes });
  assert.equal(withHead.match("HEAD", "/apps/a/archive"), { kind: "route", handler: "page", params: { app: "a" } });
  assert.equal(withHead.match("DELETE", "/apps/a/archive"), { kind: "method-not-allowed", allow: "GET, HEAD, POST" });
});

Router(
  "a reserved path (answered before the table) is known: another method gets 405 naming the methods answered",
  () => {
    const router = createRouter({
      routes: [route("GET", "/a", "a")],
      reserved: [{ path: "/healthz", methods: ["HEAD", "GET"] }],
    });
    assert.equal(router.match("POST", "/healthz"), { kind: "method-not-allowed", allow: "GET, HEAD" });
    assert.equal(router.match("GET", "/nope"), { kind: "not-found" });
  },
);

Router("a mistake in the table fails at once: a segment without a shape, a route declared twice", () => {
  assert.throws(
    () => createRouter({ routes: [route("GET", "/apps/{app}", "x")] }),
    /no shape declared for the segment \{app\}/,
  );
  assert.throws(
    () => createRouter({ segments, routes: [route("GET", "/apps/{app}", "x"), route("GET", "/apps/{app}", "y")] }),
    /route declared twice: GET \/apps\/\{app\}/,
  );
});

Router("literal characters of a path are not patterns", () => {
  const router = createRouter({ routes: [route("GET", "/a.b", "dot")] });
  assert.equal(router.match("GET", "/aXb"), { kind: "not-found" });
  assert.is(router.match("GET", "/a.b").kind, "route");
});

Router.run();
