// The logger keeps secrets out of log lines, whatever their nesting, and leaves ids of secrets readable.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLogger, redact } from "../../src/runtime/logger.js";

const Logger = suite("runtime/logger");

Logger("secret-named fields are redacted at any depth; ids and types of secrets are not", () => {
  assert.equal(
    redact({
      client_secret: "s1",
      clientSecret: "s2",
      password: "p",
      refresh_token: "r",
      accessToken: "a",
      authorization: "Bearer x",
      apiKey: "k",
      "x-api-key": "k2",
      code: "c",
      code_verifier: "v",
      nested: [{ secret: "n" }],
      apiKeyId: 7,
      tokenType: "Bearer",
      clientId: "lp_app_sb1",
      codeChallengeMethod: "S256",
    }),
    {
      client_secret: "[redacted]",
      clientSecret: "[redacted]",
      password: "[redacted]",
      refresh_token: "[redacted]",
      accessToken: "[redacted]",
      authorization: "[redacted]",
      apiKey: "[redacted]",
      "x-api-key": "[redacted]",
      code: "[redacted]",
      code_verifier: "[redacted]",
      nested: [{ secret: "[redacted]" }],
      apiKeyId: 7,
      tokenType: "Bearer",
      clientId: "lp_app_sb1",
      codeChallengeMethod: "S256",
    },
  );
});

Logger("a line is one JSON object with time, level, message and bound fields", () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line), now: () => Date.UTC(2026, 0, 1) }).child({ role: "front" });
  logger.info("hello", { password: "x", n: 1 });
  logger.debug("dropped at info level");
  assert.equal(lines.map((line) => JSON.parse(line)), [
    { time: "2026-01-01T00:00:00.000Z", level: "info", msg: "hello", role: "front", password: "[redacted]", n: 1 },
  ]);
});

Logger.run();
