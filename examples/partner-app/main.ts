// `npm run example`: the example partner app on the demo's redirect URI (http://127.0.0.1:9999/callback), so the
// demo's consent ends on a page instead of "connection refused". Start the API first: `npm start -- --demo`.
import { createExampleServer } from "./server.js";
import { loadExampleSettings } from "./settings.js";

const settings = await loadExampleSettings();
const redirect = new URL(settings.redirectUri);
const server = createExampleServer(settings);
server.listen(Number(redirect.port || 80), redirect.hostname, () => {
  process.stdout.write(
    `example partner app: open ${redirect.origin}/ (redirect URI ${settings.redirectUri}, ${settings.environment} client ${settings.clientId})\n`,
  );
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
