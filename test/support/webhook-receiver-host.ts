// A partner's webhook receiver as a machine of its own (the topology test's receiver host, in a network namespace
// of its own): test/support/webhook-receiver.ts on RECEIVER_HOST:RECEIVER_PORT, verifying every delivery with the
// `standardwebhooks` package. The test tells it the endpoint's secret on stdin (one `{"secret": "whsec_…"}` line,
// answered `secret added`) and reads every delivery from stdout as a JSON line `webhook received`: webhook-id, type,
// whether it verified, the order's id and company, the sender's address, and a digest of the body (a duplicate of
// an event must be the same bytes). Runs until SIGTERM.
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { startReceiver } from "./webhook-receiver.js";

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ msg, ...fields })}\n`);

const receiver = await startReceiver("ok", "/hooks", {
  host: process.env["RECEIVER_HOST"] ?? "127.0.0.1",
  port: Number(process.env["RECEIVER_PORT"] ?? 0),
});
receiver.onReceived = (delivery) => {
  const data = delivery.verified?.data as { companyId?: number; order?: { id?: number } } | undefined;
  log("webhook received", {
    webhookId: delivery.headers["webhook-id"],
    type: delivery.verified?.type,
    verified: delivery.verified !== undefined,
    companyId: data?.companyId,
    orderId: data?.order?.id,
    from: delivery.from,
    bodySha256: createHash("sha256").update(delivery.body).digest("hex"),
  });
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const { secret } = JSON.parse(line) as { secret: string };
  receiver.secrets.push(secret);
  log("secret added", { count: receiver.secrets.length });
});

process.once("SIGTERM", () => {
  void receiver.close().then(() => process.exit(0));
});
log("receiver ready", { url: receiver.url });
