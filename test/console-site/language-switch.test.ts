// src/console-site/console-server.ts languageSwitchPath: the language switch of every console page leads to a page
// that answers GET (a link is followed with GET; a POST-only path answers it 405).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { languageSwitchPath } from "../../src/console-site/console-server.js";

const Switch = suite("console-site/language-switch");

Switch("a page that answers GET switches to itself", () => {
  for (const path of [
    "/",
    "/program",
    "/sign-in",
    "/reset-password",
    "/organizations/5",
    "/organizations/5/sandbox-merchants/77",
    "/apps/app_1",
    "/apps/app_1/credentials",
    "/apps/app_1/api-keys",
    "/apps/app_1/access-requests",
    "/apps/app_1/redirect-uris",
    "/apps/app_1/review",
    "/apps/app_1/settings",
    "/apps/app_1/first-call",
    "/apps/app_1/webhooks",
    "/apps/app_1/requests/9",
  ])
    assert.is(languageSwitchPath(path), path);
});

Switch("a form's result at a POST-only path switches to the nearest page above it that answers GET", () => {
  assert.equal(
    [
      "/organizations",
      "/program/apply",
      "/program/sign",
      "/organizations/5/apps",
      "/organizations/5/members/8/role",
      "/organizations/5/sandbox-merchants",
      "/organizations/5/sandbox-merchants/77/deactivate",
      "/organizations/5/sandbox-merchants/77/orders/12/move",
      "/apps/app_1/rotate",
      "/apps/app_1/api-keys/revoke",
      "/apps/app_1/webhooks/wh_2/deliveries/dl_3/resend",
      "/sign-out",
    ].map(languageSwitchPath),
    [
      "/",
      "/program",
      "/program",
      "/organizations/5",
      "/organizations/5",
      "/organizations/5",
      "/organizations/5/sandbox-merchants/77",
      "/organizations/5/sandbox-merchants/77",
      "/apps/app_1",
      "/apps/app_1/api-keys",
      "/apps/app_1/webhooks",
      "/",
    ],
  );
});

Switch("a path that is none of ours stays (its 404 page switches language in place)", () => {
  assert.is(languageSwitchPath("/nowhere/at/all"), "/nowhere/at/all");
});

Switch.run();
