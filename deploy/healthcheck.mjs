// The container's health check (Dockerfile HEALTHCHECK): exits 0 when this process is ready, 1 otherwise.
//   node healthcheck.mjs        GET http://127.0.0.1:$PORT/readyz answers 200 (fronts and all-roles processes)
//   node healthcheck.mjs data   grpc.health.v1.Health/Check on the internal port ($GRPC_PORT, Connect JSON over
//                               HTTP/1.1, https when GRPC_TLS_CERT is set) answers SERVING (a --role data process
//                               has no HTTP front, only the internal port)
// It probes its own process over loopback, so with TLS it does not verify the certificate (it is this process's).
import http from "node:http";
import https from "node:https";

const timeoutMs = 3000;
const data = process.argv[2] === "data";

function request(options, body) {
  return new Promise((resolve, reject) => {
    const transport = options.protocol === "https:" ? https : http;
    const outgoing = transport.request({ ...options, timeout: timeoutMs }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode, text }));
    });
    outgoing.once("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

async function ready() {
  if (!data) {
    const answer = await request({
      protocol: "http:",
      host: "127.0.0.1",
      port: Number(process.env.PORT || 8080),
      path: "/readyz",
      method: "GET",
    });
    return answer.status === 200 ? true : `/readyz answered ${answer.status} ${answer.text}`;
  }
  const tls = Boolean(process.env.GRPC_TLS_CERT);
  const answer = await request(
    {
      protocol: tls ? "https:" : "http:",
      host: "127.0.0.1",
      port: Number(process.env.GRPC_PORT || 8090),
      path: "/grpc.health.v1.Health/Check",
      method: "POST",
      headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
      rejectUnauthorized: false,
    },
    "{}",
  );
  const status = answer.status === 200 ? JSON.parse(answer.text).status : undefined;
  return status === "SERVING" ? true : `health answered ${answer.status} ${answer.text}`;
}

ready().then(
  (outcome) => {
    if (outcome === true) return;
    process.stderr.write(`not ready: ${outcome}\n`);
    process.exitCode = 1;
  },
  (error) => {
    process.stderr.write(`not ready: ${error.message}\n`);
    process.exitCode = 1;
  },
);
