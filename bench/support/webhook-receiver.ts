// The partner's receivers of `npm run bench:webhooks`, in a process of their own: RECEIVERS (1) receivers of
// test/support/webhook-receiver.ts on ports of their own, one per webhook endpoint (each verifies every delivery
// with the `standardwebhooks` npm package and answers 204). Prints `{"urls"}` once listening, then one JSON line
// per request received (the receiver's index, its webhook-id, the event's type, the merchant, the order's id and
// status, when its body had arrived, whether it verified); reads `<index> <whsec_ secret>` lines from stdin.
import { createInterface } from "node:readline";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";

const receivers: Receiver[] = [];
for (let index = 0; index < Number(process.env["RECEIVERS"] ?? 1); index++) receivers.push(await startReceiver("ok"));
createInterface({ input: process.stdin }).on("line", (line) => {
  const [index, secret] = line.trim().split(" ");
  if (secret) receivers[Number(index)]?.secrets.push(secret);
});
process.stdout.write(`${JSON.stringify({ urls: receivers.map((receiver) => receiver.url) })}\n`);

const reported = receivers.map(() => 0);
const report = () => {
  const lines: string[] = [];
  receivers.forEach((receiver, index) => {
    for (; reported[index]! < receiver.received.length; reported[index]!++) {
      const request = receiver.received[reported[index]!]!;
      let order: { id?: unknown; status?: unknown } = {};
      let type: unknown;
      let companyId: unknown;
      try {
        const payload = JSON.parse(request.body) as {
          type?: unknown;
          data?: { companyId?: unknown; order?: typeof order };
        };
        type = payload.type;
        companyId = payload.data?.companyId;
        order = payload.data?.order ?? {};
      } catch {
        // not JSON: reported without them (the bench counts it as missing)
      }
      lines.push(
        JSON.stringify({
          receiver: index,
          webhookId: request.headers["webhook-id"],
          type,
          companyId,
          orderId: order.id === undefined ? undefined : String(order.id),
          status: order.status,
          at: request.receivedAt,
          verified: request.verified !== undefined,
        }),
      );
    }
  });
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
};
const timer = setInterval(report, 50);
process.once("SIGTERM", () => {
  clearInterval(timer);
  report();
  void Promise.all(receivers.map((receiver) => receiver.close())).then(() => process.exit(0));
});
