// src/webhook/address-policy.ts and endpoint-url.ts without a server: which addresses and ports a webhook may reach
// under each policy, above all the operator's private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS) for sandbox
// endpoints: inside the list yes, a private address outside it no, this deployment's own ports never, and a
// production endpoint (no list) never.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  addressKind,
  connectionAllowed,
  privateNetworksOf,
  type AddressPolicy,
} from "../../src/webhook/address-policy.js";
import { checkEndpointUrl } from "../../src/webhook/endpoint-url.js";

const Policy = suite("webhook/address-policy");

const forbiddenPorts = new Set([5432, 6379, 8090, 8091]);
/** A sandbox endpoint's policy where the operator allows 10.77.5.0/24 and fd12:3456::/32 (not loopback). */
const sandbox: AddressPolicy = {
  allowLoopback: false,
  privateNetworks: privateNetworksOf(["10.77.5.0/24", "fd12:3456::/32"]),
  forbiddenPorts,
};
/** A production endpoint's: no loopback, no private network, whatever the configuration. */
const production: AddressPolicy = { allowLoopback: false, privateNetworks: undefined, forbiddenPorts };
const noDns = async () => [];

Policy(
  "kinds: loopback, private (RFC 1918, CGNAT, unique-local), internal (link-local, metadata, reserved), public",
  () => {
    assert.is(addressKind("127.0.0.1"), "loopback");
    assert.is(addressKind("::ffff:127.0.0.1"), "loopback");
    for (const address of ["10.77.5.12", "172.20.0.1", "192.168.1.1", "100.64.0.1", "fd12:3456::1", "::ffff:10.1.2.3"])
      assert.is(addressKind(address), "private", address);
    for (const address of ["169.254.169.254", "fd00:ec2::254", "fe80::1", "0.0.0.0", "224.0.0.1", "not an address"])
      assert.is(addressKind(address), "internal", address);
    assert.is(addressKind("93.184.216.34"), "public");
    assert.is(addressKind("2606:2800:220:1::1"), "public");
  },
);

Policy("an allowed private network: inside it yes (IPv4, IPv6, IPv4-mapped), a private address outside it no", () => {
  assert.ok(connectionAllowed("10.77.5.12", 8080, sandbox));
  assert.ok(connectionAllowed("::ffff:10.77.5.12", 8080, sandbox), "as a dual-stack socket reports it");
  assert.ok(connectionAllowed("fd12:3456::9", 443, sandbox));
  assert.not.ok(connectionAllowed("10.77.6.12", 8080, sandbox), "the next /24");
  assert.not.ok(connectionAllowed("192.168.1.1", 8080, sandbox));
  assert.not.ok(connectionAllowed("fd12:3457::9", 443, sandbox));
  // The list allows private addresses only: never loopback, link-local or the metadata addresses.
  assert.not.ok(connectionAllowed("127.0.0.1", 8080, sandbox));
  assert.not.ok(connectionAllowed("169.254.169.254", 80, sandbox));
  const wide = { ...sandbox, privateNetworks: privateNetworksOf(["fd00::/8"]) };
  assert.ok(connectionAllowed("fd00::1", 443, wide));
  assert.not.ok(connectionAllowed("fd00:ec2::254", 80, wide), "AWS's IPv6 metadata address stays refused");
  assert.ok(connectionAllowed("93.184.216.34", 443, sandbox), "public addresses as ever");
});

Policy("this deployment's own ports stay forbidden on an allowed private network (and on loopback)", () => {
  for (const port of forbiddenPorts) {
    assert.not.ok(connectionAllowed("10.77.5.12", port, sandbox), String(port));
    assert.not.ok(connectionAllowed("127.0.0.1", port, { ...production, allowLoopback: true }), String(port));
  }
  assert.ok(connectionAllowed("93.184.216.34", 5432, sandbox), "another machine's port is its business");
});

Policy("a production endpoint reaches no private network, listed or not", () => {
  assert.not.ok(connectionAllowed("10.77.5.12", 8080, production));
  assert.not.ok(connectionAllowed("fd12:3456::9", 443, production));
});

Policy(
  "registration: http to an allowed private network passes for sandbox; the refusals name what is allowed",
  async () => {
    assert.is(await checkEndpointUrl("http://10.77.5.12:8080/hooks", sandbox, noDns), undefined);
    assert.is(await checkEndpointUrl("https://[fd12:3456::9]/hooks", sandbox, noDns), undefined);
    assert.is(
      await checkEndpointUrl("http://receiver.internal:8080/hooks", sandbox, async () => ["10.77.5.12"]),
      undefined,
    );
    const privateRule =
      "must resolve to public addresses or the allowed private networks (not this service's own ports)";
    assert.is(await checkEndpointUrl("http://10.77.6.12:8080/hooks", sandbox, noDns), privateRule);
    assert.is(await checkEndpointUrl("http://10.77.5.12:5432/", sandbox, noDns), privateRule);
    // Every address a name resolves to must be allowed, not just one.
    assert.is(
      await checkEndpointUrl("http://receiver.internal/", sandbox, async () => ["10.77.5.12", "10.9.9.9"]),
      privateRule,
    );
    assert.is(
      await checkEndpointUrl("http://10.77.6.12/", { ...sandbox, allowLoopback: true }, noDns),
      "must resolve to public addresses, loopback or the allowed private networks (not this service's own ports)",
    );
    assert.is(
      await checkEndpointUrl("https://10.77.5.12/hooks", production, noDns),
      "must resolve to public addresses only",
    );
    assert.is(await checkEndpointUrl("http://93.184.216.34/hooks", sandbox, noDns), "must be https");
  },
);

Policy.run();
