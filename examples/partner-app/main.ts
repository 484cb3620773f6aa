// `npm run example`: the example partner app on the demo's redirect URI (http://127.0.0.1:9999/callback), so the
// demo's consent ends on a page instead of "connection refused". Start the API first: `npm start -- --demo`.
import { createExampleServer } from "./server.js";
import { loadExampleSettings } from "./settings.js";

const settings = await loadExampleSettings();
const redirect = new URL(settings.redirectUri);
const { server, subscribeToEvents } = createExampleServer(settings);
server.listen(Number(redirect.port || 80), redirect.hostname, async () => {
  process.stdout.write(
    `example partner app: open ${redirect.origin}/ (redirect URI ${settings.redirectUri}, ${settings.environment} client ${settings.clientId})\n`,
  );
  const subscriptions = await subscribeToEvents();
  for (const { app, url } of subscriptions)
    process.stdout.write(`example partner app: ${app} events arrive at ${url}, listed at ${redirect.origin}/events\n`);
  if (subscriptions.length === 0)
    process.stdout.write(
      `example partner app: no webhook endpoint was registered; ${redirect.origin}/events says why\n`,
    );
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
