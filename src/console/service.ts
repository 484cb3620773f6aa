// ConsoleService: the developer console. Accounts and console sessions, the partner program, organizations
// with roles and invitations, and the self-service of apps, sandbox merchants, access requests and webhooks, which
// calls the credential, grant and webhook owners' plain interfaces once the caller's role allows it. Console bearer authentication happens here, from the
// Authorization header the front forwards, so the front needs no console step. docs/decisions.md, "Console".
// One module per section of console_service.proto; this file composes them, so a missing RPC fails to compile.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createAccessRequestHandlers } from "./access-requests.js";
import { createAccountHandlers } from "./accounts.js";
import { createAppHandlers } from "./apps.js";
import { createRequestLogHandlers } from "./request-log.js";
import { createWebhookHandlers } from "./webhooks.js";
import { createConsoleContext, type ConsoleServiceDeps } from "./console-context.js";

export type { ConsoleServiceDeps };
import { createOrganizationHandlers } from "./organizations.js";
import { createOrganizationInvitationHandlers } from "./organization-invitations.js";
import { createOrganizationMemberHandlers } from "./organization-members.js";
import { createProgramHandlers } from "./program.js";
import { createSandboxMerchantHandlers } from "./sandbox-merchants.js";
import { createSessionHandlers } from "./sessions.js";
import { composeSections } from "../runtime/service-sections.js";
import type { ServiceContext } from "../runtime/service-context.js";

export function createConsoleService(
  context: ServiceContext,
  deps: ConsoleServiceDeps,
): ServiceImpl<typeof ConsoleService> {
  const shared = createConsoleContext(context, deps);
  return composeSections(
    createAccountHandlers(shared),
    createSessionHandlers(shared),
    createProgramHandlers(shared),
    createOrganizationHandlers(shared),
    createOrganizationMemberHandlers(shared),
    createOrganizationInvitationHandlers(shared),
    createAppHandlers(shared),
    createSandboxMerchantHandlers(shared),
    createAccessRequestHandlers(shared),
    createRequestLogHandlers(shared),
    createWebhookHandlers(shared),
  );
}
