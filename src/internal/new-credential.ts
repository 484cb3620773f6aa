// `npm run credential -- <role> [id]`: makes a service credential for the internal port. Prints the credential
// (give it to the caller, once) and the line to add to the credentials file of every process that must accept it.
import { newServiceCredential, serviceRoles, type ServiceRole } from "./service-credentials.js";

const [role, id] = process.argv.slice(2);
if (!role || !(serviceRoles as readonly string[]).includes(role)) {
  process.stderr.write(`usage: npm run credential -- <${serviceRoles.join("|")}> [id]\n`);
  process.exit(2);
}
try {
  const made = newServiceCredential(role as ServiceRole, id);
  process.stdout.write(
    `credential (give it to the caller; it is not stored anywhere):\n  ${made.credential}\n` +
      `line for GRPC_CREDENTIALS_FILE (append; remove the old line once callers have moved):\n  ${made.line}\n`,
  );
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
