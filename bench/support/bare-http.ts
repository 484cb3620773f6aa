// The floor of any HTTP answer on this machine: a bare node:http server answering 1 KB of JSON. Prints {"port": n}.
import http from "node:http";

const body = JSON.stringify({ data: "x".repeat(1024 - 11) });
const server = http.createServer((_request, response) => {
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(body);
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + "\n"),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
