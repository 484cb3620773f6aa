// Where a developer stands in the partner program, said where apps are created: the API creates an app only for an
// approved application with the active agreement signed (src/console/console-context.ts, requireProgram), so until
// then the organization page shows the state and the one next step instead of a form it would refuse.
import { ProgramApplicationState } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { Visit } from "./visit.js";

/** The account's program state and the active agreement (its document), as the API tells them. */
export interface ProgramStanding {
  /** May create apps: approved, and the active agreement signed. */
  ready: boolean;
  state: ProgramApplicationState;
  /** The active agreement version (absent: none published yet). */
  agreement?: { version: number; title: string; url: string };
  /** The account's signature is of the active version. */
  signed: boolean;
}

export async function programStanding(visit: Visit): Promise<ProgramStanding> {
  const [account, agreement] = await Promise.all([visit.api("getAccount"), visit.api("getActiveAgreement")]);
  const me = account.ok ? account.value.account : undefined;
  const current = agreement.ok ? agreement.value.agreement : undefined;
  const state = me?.programApplicationState ?? ProgramApplicationState.UNSPECIFIED;
  const signed = current !== undefined && me?.signedAgreementVersion === current.version;
  return {
    // Unknown (the account did not load): the form is offered and the API decides, as before.
    ready: !me || (state === ProgramApplicationState.APPROVED && signed),
    state,
    agreement: current ? { version: current.version, title: current.title, url: current.url } : undefined,
    signed,
  };
}

/** The state in words and the next step as a link (with the agreement's document when it is to be signed). */
export function programGate(visit: Visit, standing: ProgramStanding): SafeHtml {
  const { t } = visit;
  let text: string;
  let next: SafeHtml;
  switch (standing.state) {
    case ProgramApplicationState.PENDING:
      text = t("console.gatePending");
      next = html`<a href="/program">${t("console.gatePendingNext")}</a>`;
      break;
    case ProgramApplicationState.DECLINED:
      text = t("console.gateDeclined");
      next = html`<a class="button" href="/program">${t("console.gateDeclinedNext")}</a>`;
      break;
    case ProgramApplicationState.APPROVED:
      if (!standing.agreement) {
        text = t("console.gateNoAgreement");
        next = html`<a href="/program">${t("console.gatePendingNext")}</a>`;
        break;
      }
      text = t("console.gateSign", { version: standing.agreement.version });
      next = html`<a href="${standing.agreement.url}">${t("console.agreementReadNamed", { title: standing.agreement.title, version: standing.agreement.version })}</a> <a class="button" href="/program#agreement-heading">${t("console.gateSignNext")}</a>`;
      break;
    default:
      text = t("console.gateNone");
      next = html`<a class="button" href="/program">${t("console.gateNoneNext")}</a>`;
  }
  return html`<div class="alert info" id="program-state" role="status"><p>${text}</p><p class="actions">${next}</p></div>`;
}
