// Invitations on the console site over plain HTTP against the real app: the organization page's pending list with
// its resend and revoke (the old and the revoked links say so in words), in English and in Arabic with no English
// left; an invitation that survives sign-up (open the link, sign up, verify, sign in: back on the invitation, then
// a member); and the program's waiting page, which names `npm run staff -- approve <id>` in development mode only.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { momentText, translator } from "../../src/web/i18n.js";
import { mailedLink, mailsTo, tokenOf } from "../support/console.js";
import { englishLeftIn, visibleText } from "../support/catalogue-leaks.js";
import { grpcTransport, writeInternalCredentials } from "../support/internal.js";
import { hiddenValue, startTestApp, type TestApp } from "../support/test-app.js";
import {
  createSiteBrowser,
  signedUpDeveloper,
  strongPassword,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";

const Site = suite("console-site/invitations");
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const en = translator("en");
const ar = translator("ar");
const newEmail = (who: string) => `${who}.${process.pid}.${++serial}@invite-site.test`;

Site.before(async () => {
  test = await startTestApp({
    clock,
    redis: Boolean(process.env["TEST_REDIS_URL"]),
    env: { TRUST_PROXY: "127.0.0.1" },
  });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
});
Site.after(async () => {
  await test.stop();
});

async function organizationOf(browser: SiteBrowser, name: string): Promise<number> {
  const made = await browser.post("/organizations", { name }, await browser.get("/"));
  assert.is(made.status, 303, made.html);
  return Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
}

/** The path of a mailed invitation link. */
const pathOf = (link: string) => link.slice(test.console.length);

/** The <li> of the pending invitation to `email` on an organization page. */
function rowOf(html: string, email: string): string {
  const row = html.match(/<li data-invitation="\d+">[\s\S]*?<\/li>/g)?.find((li) => li.includes(email));
  if (!row) throw new Error(`no pending invitation to ${email} on the page`);
  return row;
}

Site("the pending list: resend mails a new link, the old one says it was replaced; revoke says withdrawn", async () => {
  const owner = createSiteBrowser(test);
  const ownerEmail = newEmail("owner");
  await signedUpDeveloper(test, owner, ownerEmail);
  const organizationId = await organizationOf(owner, `Bakery ${serial}`);
  const page = await owner.get(`/organizations/${organizationId}`);
  assert.ok(textOf(page.html).includes(en("console.noPendingInvitations")), "none yet");

  const inviteeEmail = newEmail("invitee");
  const sentAt = clock.now();
  const invited = await owner.post(
    `/organizations/${organizationId}/invitations`,
    { email: inviteeEmail, role: "VIEWER" },
    page,
  );
  assert.is(invited.status, 200, invited.html);
  const row = textOf(rowOf(invited.html, inviteeEmail));
  assert.ok(row.includes(en("console.roleViewer")), row);
  assert.ok(row.includes(en("console.invitationSentBy", { when: momentText("en", sentAt), inviter: ownerEmail })), row);
  assert.ok(row.includes(en("console.invitationExpires", { when: momentText("en", sentAt + 7 * 24 * 3600_000) })), row);
  const firstLink = await mailedLink(test, inviteeEmail);

  // Resend: a notice, a second mail with another link; the row now stands for the new invitation.
  const id = /<li data-invitation="(\d+)">/.exec(rowOf(invited.html, inviteeEmail))![1]!;
  const resent = await owner.post(`/organizations/${organizationId}/invitations/${id}/resend`, {}, invited);
  assert.is(resent.status, 200, resent.html);
  assert.ok(textOf(resent.html).includes(en("console.invitationResent", { email: inviteeEmail })), resent.html);
  assert.not.ok(resent.html.includes(`data-invitation="${id}"`), "the resent one is no longer pending");
  const mails = await mailsTo(test, inviteeEmail);
  assert.is(mails.length, 2);
  assert.is.not(mails[1]!.link, firstLink);

  // The invitee signs up and opens the first link: replaced, in words.
  const invitee = createSiteBrowser(test);
  await signedUpDeveloper(test, invitee, inviteeEmail);
  const oldPage = await invitee.get(pathOf(firstLink));
  // Said as soon as the link is opened, with no button to accept it; a POST of it anyway is refused the same way.
  assert.is(oldPage.status, 400);
  assert.ok(textOf(oldPage.html).includes(messageFor("developer.invite_superseded", {}, "en")), oldPage.html);
  assert.not.ok(oldPage.html.includes(en("console.invitationAccept")), oldPage.html);
  const refused = await invitee.post("/invitations/accept", { token: tokenOf(firstLink) }, oldPage);
  assert.is(refused.status, 400);
  assert.ok(textOf(refused.html).includes(messageFor("developer.invite_superseded", {}, "en")), refused.html);

  // Revoke the new one from the page: its link then says it was withdrawn.
  const newId = /<li data-invitation="(\d+)">/.exec(rowOf(resent.html, inviteeEmail))![1]!;
  const revoked = await owner.post(`/organizations/${organizationId}/invitations/${newId}/revoke`, {}, resent);
  assert.is(revoked.status, 200, revoked.html);
  assert.ok(textOf(revoked.html).includes(en("console.invitationRevoked", { email: inviteeEmail })), revoked.html);
  assert.ok(textOf(revoked.html).includes(en("console.noPendingInvitations")));
  const newPage = await invitee.get(pathOf(mails[1]!.link));
  assert.is(newPage.status, 400);
  assert.ok(textOf(newPage.html).includes(messageFor("developer.invite_revoked", {}, "en")), newPage.html);
  const withdrawn = await invitee.post("/invitations/accept", { token: tokenOf(mails[1]!.link) }, newPage);
  assert.is(withdrawn.status, 400);
  assert.ok(textOf(withdrawn.html).includes(messageFor("developer.invite_revoked", {}, "en")), withdrawn.html);

  // A second revoke (a stale page): the refusal in words, on the page.
  const again = await owner.post(`/organizations/${organizationId}/invitations/${newId}/revoke`, {}, resent);
  assert.is(again.status, 409);
  assert.ok(textOf(again.html).includes(messageFor("developer.invitation_not_pending", {}, "en")), again.html);
});

Site("in Arabic: the pending list, its buttons and an expired invitation, with no English left", async () => {
  const owner = createSiteBrowser(test, "ar");
  const ownerEmail = newEmail("owner-ar");
  await signedUpDeveloper(test, owner, ownerEmail);
  const organizationId = await organizationOf(owner, `مخبز ${serial}`);
  const page = await owner.get(`/organizations/${organizationId}`);
  const email = newEmail("guest");
  const sentAt = clock.now();
  const invited = await owner.post(`/organizations/${organizationId}/invitations`, { email, role: "ADMIN" }, page);
  assert.is(invited.status, 200, invited.html);
  const row = textOf(rowOf(invited.html, email));
  assert.ok(row.includes(ar("console.roleAdmin")), row);
  assert.ok(row.includes(ar("console.resendInvitation")) || invited.html.includes(ar("console.resendInvitation")));
  assert.equal(englishLeftIn(visibleText(invited.html), "ar", "console"), []);
  // The mail follows the inviter's page: Arabic, the role in words.
  const mail = (await mailsTo(test, email)).at(-1)!;
  assert.ok(mail.text.includes(ar("console.roleAdmin")), mail.text);

  // Eight days on (the session renews its access token; its refresh token lives 14 days): expired, still listed.
  clock.advance(8 * 24 * 3600_000);
  const later = await owner.get(`/organizations/${organizationId}`);
  assert.is(later.status, 200, later.html);
  assert.ok(
    textOf(rowOf(later.html, email)).includes(
      ar("console.invitationExpired", { when: momentText("ar", sentAt + 7 * 24 * 3600_000) }),
    ),
    rowOf(later.html, email),
  );
  assert.equal(englishLeftIn(visibleText(later.html), "ar", "console"), []);
});

Site(
  "an invitation survives sign-up: link, sign up, verify, sign in, and the invitation is there to accept",
  async () => {
    const owner = createSiteBrowser(test);
    const ownerEmail = newEmail("owner");
    await signedUpDeveloper(test, owner, ownerEmail);
    const team = `Team ${serial}`;
    const organizationId = await organizationOf(owner, team);
    const email = newEmail("newcomer");
    await owner.post(
      `/organizations/${organizationId}/invitations`,
      { email, role: "DEVELOPER" },
      await owner.get(`/organizations/${organizationId}`),
    );
    const invitation = pathOf(await mailedLink(test, email));

    const newcomer = createSiteBrowser(test);
    const landing = await newcomer.get(invitation);
    assert.is(landing.status, 200);
    const signUpHref = /href="(\/sign-up\?return_to=[^"]+)"/.exec(landing.html)?.[1]?.replace(/&amp;/g, "&");
    assert.is(signUpHref, `/sign-up?return_to=${encodeURIComponent(invitation)}`);
    const form = await newcomer.get(signUpHref!);
    assert.is(hiddenValue(form.html, "return_to"), invitation);
    const sent = await newcomer.post(
      "/sign-up",
      { email, password: strongPassword, return_to: hiddenValue(form.html, "return_to") },
      form,
    );
    assert.is(sent.status, 200, sent.html);
    assert.ok(textOf(sent.html).includes(en("console.checkMailInvitation")), sent.html);

    // The verification link, then the sign-in it offers: it leads back to the invitation.
    const verified = await newcomer.get(pathOf(await mailedLink(test, email)));
    assert.is(verified.status, 200, verified.html);
    const signInHref = /href="(\/sign-in[^"]*)"/
      .exec(verified.html.split("</header>")[1] ?? "")?.[1]
      ?.replace(/&amp;/g, "&");
    assert.is(signInHref, `/sign-in?return_to=${encodeURIComponent(invitation)}`);
    const signInPage = await newcomer.get(signInHref!);
    const signedIn = await newcomer.post(
      "/sign-in",
      { email, password: strongPassword, return_to: hiddenValue(signInPage.html, "return_to") },
      signInPage,
    );
    assert.is(signedIn.status, 303);
    assert.is(signedIn.location, invitation);

    const accept = await newcomer.get(invitation);
    assert.ok(textOf(accept.html).includes(en("console.invitationAccept")), accept.html);
    // Before the button: who invites, to which organization, with which role, until when.
    const from = en("console.invitationFrom", {
      inviter: `\u2068${ownerEmail}\u2069`,
      organization: `\u2068${team}\u2069`,
      role: en("console.roleDeveloper"),
    });
    assert.is(from, `\u2068${ownerEmail}\u2069 invited you to join \u2068${team}\u2069 as Developer.`);
    assert.ok(accept.html.includes(`<p class="lead">${from}</p>`), accept.html);
    assert.ok(accept.html.indexOf(from) < accept.html.indexOf(en("console.invitationAccept")), "before the button");
    const joined = await newcomer.post("/invitations/accept", { token: hiddenValue(accept.html, "token") }, accept);
    assert.is(joined.status, 303, joined.html);
    assert.is(joined.location, `/organizations/${organizationId}`);
    const orgPage = await newcomer.get(joined.location!);
    assert.is(orgPage.status, 200);
    assert.ok(textOf(orgPage.html).includes(en("console.roleDeveloper")));
  },
);

Site("the invitation is kept across the mail even when the sign-in page is opened bare", async () => {
  const owner = createSiteBrowser(test);
  await signedUpDeveloper(test, owner, newEmail("owner"));
  const organizationId = await organizationOf(owner, `Crew ${serial}`);
  const email = newEmail("bare");
  await owner.post(
    `/organizations/${organizationId}/invitations`,
    { email, role: "VIEWER" },
    await owner.get(`/organizations/${organizationId}`),
  );
  const invitation = pathOf(await mailedLink(test, email));
  const newcomer = createSiteBrowser(test);
  const form = await newcomer.get(`/sign-up?return_to=${encodeURIComponent(invitation)}`);
  await newcomer.post("/sign-up", { email, password: strongPassword, return_to: invitation }, form);
  await newcomer.get(pathOf(await mailedLink(test, email)));
  // Straight to /sign-in, no query: the cookie the sign-up set leads back all the same, once.
  const signInPage = await newcomer.get("/sign-in");
  const signedIn = await newcomer.post("/sign-in", { email, password: strongPassword }, signInPage);
  assert.is(signedIn.location, invitation);
  assert.ok(
    signedIn.setCookie.some((line) => /^lp_console_invitation=;/.test(line) && /Max-Age=0/.test(line)),
    "used once, then cleared",
  );
});

Site("the waiting page names the staff command in development mode, with the real id", async () => {
  const developer = createSiteBrowser(test);
  const email = newEmail("waiting");
  await signedUpDeveloper(test, developer, email);
  const program = await developer.get("/program");
  const applied = await developer.post(
    "/program/apply",
    { companyName: "Waiting Ltd", website: "https://waiting.test", useCase: "stock sync" },
    program,
  );
  assert.is(applied.status, 303);
  const pending = (await staff.listProgramApplications({})).applications.find(
    (application) => application.companyName === "Waiting Ltd" && application.state === 1,
  )!;
  const waiting = await developer.get("/program");
  assert.ok(textOf(waiting.html).includes(en("console.programStaffHint")), waiting.html);
  assert.ok(waiting.html.includes(`<code>npm run staff -- approve ${pending.applicationId}</code>`), waiting.html);
  // Staff decide: the hint goes with the wait. No agreement is published in this app yet: its command is named.
  await staff.decideProgramApplication({ applicationId: pending.applicationId, approve: true });
  const approved = await developer.get("/program");
  assert.not.ok(approved.html.includes("npm run staff -- approve"), approved.html);
  assert.ok(textOf(approved.html).includes(en("console.agreementStaffHint")), approved.html);
  // Said once: the section says no agreement is published, the hint only how to publish one.
  assert.is(textOf(approved.html).split(/agreement is published/i).length, 2, textOf(approved.html));
  assert.ok(
    approved.html.includes(
      "<code>npm run staff -- publish-agreement &quot;Local terms&quot; https://example.com/terms</code>",
    ),
    approved.html,
  );
});

Site("outside development mode the waiting page only says it waits", async () => {
  // Credentials of the deployment's own (GRPC_CREDENTIALS_FILE): staff exist, no command is offered.
  const dir = await mkdtemp(join(tmpdir(), "pa-staff-file-"));
  const credentials = await writeInternalCredentials(dir, "deployment-credentials");
  const deployed = await startTestApp({
    clock,
    redis: false,
    env: { TRUST_PROXY: "127.0.0.1", GRPC_CREDENTIALS_FILE: credentials.file },
  });
  try {
    assert.is(deployed.config.internal.localStaff, false);
    const developer = createSiteBrowser(deployed);
    await signedUpDeveloper(deployed, developer, newEmail("deployed"));
    await developer.post(
      "/program/apply",
      { companyName: "Deployed Ltd", useCase: "sync" },
      await developer.get("/program"),
    );
    const waiting = await developer.get("/program");
    assert.ok(textOf(waiting.html).includes(en("console.programPendingExplain")), waiting.html);
    assert.not.ok(waiting.html.includes("npm run staff"), waiting.html);
    assert.not.ok(textOf(waiting.html).includes(en("console.programStaffHint")));
  } finally {
    await deployed.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

Site.run();
