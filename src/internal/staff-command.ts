// `npm run staff -- <command>`: the platform staff's console decisions from a terminal, for a local run where no
// staff exist (development mode, config.internal.localStaff). It calls the ConsoleService staff RPCs on the
// internal port (GRPC_HOST:GRPC_PORT of the same environment as `npm start`) with the staff credential the service
// keeps in DATA_DIR/staff-credential, as any staff tool would: no shortcut around the port's access policy.
//   applications                       the applications waiting for a decision
//   approve <id> / decline <id>        decides one
//   publish-agreement <title> <url>    publishes a developer agreement version (the active one from now on)
import { readFile } from "node:fs/promises";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  ConsoleService,
  ProgramApplicationState,
  type ProgramApplication,
} from "../../gen/partnerapi/v1/console_service_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ConfigError, loadConfig, type Config } from "../config/config.js";
import { messageFor, readServiceError } from "../errors/index.js";
import { readPresentedCredential, staffCredentialPath } from "./service-credentials.js";

const usage = `usage: npm run staff -- <command>
  applications                       list the program applications waiting for a decision
  approve <id>                       approve application <id>
  decline <id>                       decline application <id>
  publish-agreement <title> <url>    publish a new developer agreement version (active at once)
It reaches the internal port of the environment's GRPC_HOST and GRPC_PORT with DATA_DIR/staff-credential, which
npm start keeps in development mode (GRPC_CREDENTIALS_FILE unset, NODE_ENV not production).
`;

/** A failure to report in words, with the exit status it ends with (2: the command was wrong). */
class StaffCommandError extends Error {
  constructor(
    message: string,
    readonly status = 1,
  ) {
    super(message);
  }
}

/** The internal port's URL as a client reaches it: an unspecified listen address is reached on loopback. */
function internalUrl(config: Config): string {
  const host = config.listen.grpcHost;
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const bracketed = reachable.includes(":") ? `[${reachable}]` : reachable;
  return `${config.internal.tls ? "https" : "http"}://${bracketed}:${config.listen.grpcPort}`;
}

async function staffClient(config: Config): Promise<{ client: Client<typeof ConsoleService>; url: string }> {
  const file = staffCredentialPath(config.dataDir);
  const credential = await readPresentedCredential(file).catch((error: NodeJS.ErrnoException) => {
    throw new StaffCommandError(
      error.code === "ENOENT"
        ? `no staff credential at ${file}: npm start writes it in development mode (GRPC_CREDENTIALS_FILE unset, NODE_ENV not production); start it once with the same DATA_DIR`
        : error.message,
    );
  });
  const url = internalUrl(config);
  // With TLS, the port's own certificate is the one to trust (a local run's is self-signed).
  const ca = config.internal.tls ? await readFile(config.internal.tls.certFile) : undefined;
  const transport = createGrpcTransport({
    baseUrl: url,
    nodeOptions: ca ? { ca } : {},
    interceptors: [
      (next) => (request) => {
        request.header.set("x-service-credential", credential);
        return next(request);
      },
    ],
  });
  return { client: createClient(ConsoleService, transport), url };
}

/** An application id as typed: a positive integer. */
function applicationId(value: string | undefined): number {
  if (!value || !/^[1-9]\d{0,15}$/.test(value))
    throw new StaffCommandError(`an application id is a positive number\n${usage}`, 2);
  return Number(value);
}

const describe = (application: ProgramApplication) =>
  [
    `#${application.applicationId}  ${application.companyName}${application.website ? `  ${application.website}` : ""}`,
    `    account ${application.accountId}, submitted ${application.createdAt}`,
    ...(application.useCase ? [`    use case: ${application.useCase.replace(/\s+/g, " ")}`] : []),
  ].join("\n");

async function run(args: string[], write: (text: string) => void): Promise<void> {
  const [command, ...rest] = args;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    if (!command) throw new StaffCommandError(usage, 2);
    write(usage);
    return;
  }
  const known = ["applications", "approve", "decline", "publish-agreement"];
  if (!known.includes(command)) throw new StaffCommandError(`unknown command ${JSON.stringify(command)}\n${usage}`, 2);
  const expected = { applications: 0, approve: 1, decline: 1, "publish-agreement": 2 }[command]!;
  if (rest.length !== expected)
    throw new StaffCommandError(`${command} takes ${expected} argument${expected === 1 ? "" : "s"}\n${usage}`, 2);
  const id = command === "approve" || command === "decline" ? applicationId(rest[0]) : 0;
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new StaffCommandError(error.message, 2);
    throw error;
  }
  const { client, url } = await staffClient(config);
  try {
    switch (command) {
      case "applications": {
        const { applications } = await client.listProgramApplications({});
        const pending = applications.filter((application) => application.state === ProgramApplicationState.PENDING);
        if (pending.length === 0) {
          write("no program application is waiting for a decision\n");
          return;
        }
        write(`${pending.length} waiting for a decision (oldest last):\n${pending.map(describe).join("\n")}\n`);
        write(`decide with: npm run staff -- approve <id>, or npm run staff -- decline <id>\n`);
        return;
      }
      case "approve":
      case "decline": {
        const { application } = await client.decideProgramApplication({
          applicationId: BigInt(id),
          approve: command === "approve",
        });
        write(
          `application #${id} (${application?.companyName ?? ""}) ${command === "approve" ? "approved" : "declined"}\n`,
        );
        return;
      }
      case "publish-agreement": {
        const { agreement } = await client.publishAgreementVersion({ title: rest[0]!, url: rest[1]! });
        write(
          `developer agreement version ${agreement?.version} published, active from now on: ${agreement?.title} (${agreement?.url})\n`,
        );
        return;
      }
    }
  } catch (error) {
    throw refusal(error, url);
  }
}

/** What the internal port answered, in words: the catalogue's message and code, or why it could not be reached. */
function refusal(error: unknown, url: string): StaffCommandError {
  if (!(error instanceof ConnectError)) return new StaffCommandError(String((error as Error)?.message ?? error));
  // No ErrorInfo: the answer is the transport's, not the service's (nothing listens, or not our port).
  if (error.findDetails(ErrorInfoSchema).length === 0 && error.code === Code.Unavailable)
    return new StaffCommandError(
      `cannot reach the internal port at ${url}: is npm start running? (${error.rawMessage})`,
    );
  const read = readServiceError(error);
  return new StaffCommandError(`refused (${read.code}): ${messageFor(read.code, read.params, "en")}`);
}

try {
  await run(process.argv.slice(2), (text) => process.stdout.write(text));
} catch (error) {
  if (!(error instanceof StaffCommandError)) throw error;
  process.stderr.write(`${error.message.trimEnd()}\n`);
  process.exitCode = error.status;
}
