// The console owner's public surface (ConsoleService): what other folders may use of src/console/.
export { createMailTransport, type MailTransport } from "./mail.js";
export type { MailOutbox } from "./mail-outbox.js";
export { startConsoleMail } from "./mail-runtime.js";
export { createConsoleService } from "./service.js";
export { admitToProgram, demoAgreement, ensureOrganizationOwner, type OwnerLogin } from "./owner-account.js";
