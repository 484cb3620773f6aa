// The composition root, one file per role in src/app/: startApp (every role, or the front), startDataRole (one
// region's DataService), startWorkerRole (webhook delivery); beside them the pieces they share (the stores, the owners,
// the developer side, the internal port, readiness, the listeners, shutdown). Tests start the very same thing on port 0.
export type { AppOptions } from "./app/context.js";
export { startApp, type RunningApp } from "./app/all-roles.js";
export { startDataRole, type RunningDataRole } from "./app/data-role.js";
export { startWorkerRole, type RunningWorkerRole } from "./app/worker-role.js";
export { internalServices } from "./app/internal-port.js";
