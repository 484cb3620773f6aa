// The OpenAPI document as a partner uses it, with third-party tools nobody here wrote: openapi-typescript generates
// the types from GET /v1/openapi.json as served, and openapi-fetch, given the document's one server, calls every GET
// that needs no parameter on the running app. Each must reach its real endpoint (never 404): 200 when the document
// says it is anonymous, 401 when it names a credential, which these calls do not send.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import createClient from "openapi-fetch";
import openapiTS, { astToString } from "openapi-typescript";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const GeneratedClient = suite("front/openapi-generated-client");
const clock = createManualClock(Date.UTC(2026, 0, 15, 10, 0, 0));

interface Parameter {
  in: string;
  required?: boolean;
}
interface Operation {
  parameters?: Parameter[];
  security?: unknown[];
  responses: Record<string, unknown>;
}
interface Document {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

/**
 * The GETs of the document a client can call with nothing filled in, and whether the document asks for a credential.
 * (The types openapi-typescript generates are for a partner's compiler; the paths are taken here from the document.)
 */
type NoParameters = {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
  responses: Record<number, unknown>;
};
type ParameterlessGets = Record<string, { get: NoParameters }>;

let test: TestApp;
let doc: Document;

GeneratedClient.before(async () => {
  test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
  doc = (await (await fetch(`${test.base}/v1/openapi.json`)).json()) as Document;
});
GeneratedClient.after(async () => {
  await test.stop();
});

GeneratedClient(
  "openapi-typescript generates the paths from the served document, whole (/v1/..., /.well-known/...)",
  async () => {
    const types = astToString(await openapiTS(new URL(`${test.base}/v1/openapi.json`)));
    assert.match(types, /"\/\.well-known\/jwks\.json": \{/);
    assert.match(types, /"\/\.well-known\/oauth-authorization-server": \{/);
    assert.match(types, /"\/v1\/items": \{/);
    assert.match(types, /"\/v1\/console\/account": \{/);
    assert.not.match(types, /"\/items": \{/);
    // The events (OpenAPI 3.1 webhooks): a partner's receiver gets their payload types too.
    assert.match(types, /export interface webhooks \{/);
    assert.match(types, /"grant\.revoked": \{/);
    assert.match(types, /"webhook-signature": string;/);
  },
);

GeneratedClient(
  "openapi-fetch on the document's server: every parameterless GET reaches its endpoint (200 anonymous, 401 without the credential)",
  async () => {
    assert.is(doc.servers.length, 1);
    const client = createClient<ParameterlessGets>({ baseUrl: doc.servers[0]!.url });
    const called: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const operation = item["get"];
      if (!operation || path.includes("{") || (operation.parameters ?? []).some((parameter) => parameter.required))
        continue;
      const { response } = await client.GET(path, { parseAs: "text" });
      const expected = operation.security ? 401 : 200;
      assert.is(response.status, expected, `GET ${path} (${response.url})`);
      assert.ok(Object.hasOwn(operation.responses, String(expected)), `GET ${path} documents ${expected}`);
      called.push(path);
    }
    // The two the issue names, and a partner and a console route, are among them.
    for (const path of [
      "/.well-known/jwks.json",
      "/.well-known/oauth-authorization-server",
      "/v1/items",
      "/v1/console/account",
    ]) {
      assert.ok(called.includes(path), path);
    }
  },
);

GeneratedClient.run();
