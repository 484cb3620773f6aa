// The console owner's public surface (ConsoleService): what other folders may use of src/console/.
export { createMailTransport } from "./mail.js";
export { createConsoleService } from "./service.js";
