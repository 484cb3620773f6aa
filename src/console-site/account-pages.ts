// The console's account pages, before and around sign-in: sign up, verify email (the mailed link), sign in, sign
// out, forgot password and the mailed reset link, and a new verification link. Each rule (password strength,
// lockout) is explained on the page where it bites.
import { ProgramApplicationState } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { refusalOf } from "./error-summary.js";
import { alert, button, field, postForm } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

/** The shape of an invitation link's token as the return paths carry it. */
export const invitationTokenPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Where a sign-in may lead back to: our own invitation page only (no open redirect); else the dashboard. */
export function safeReturn(value: string | null | undefined): string {
  return value && /^\/invitations\/accept\?token=[A-Za-z0-9_-]{1,64}$/.test(value) ? value : "/";
}

/**
 * Where this visit's sign-in leads: the return path its form or query names, else the invitation the visitor
 * opened before signing up (kept in a cookie across the verification mail), else the dashboard.
 */
export function returnOf(visit: Visit): string {
  const named = safeReturn(visit.form.get("return_to") ?? visit.query.get("return_to"));
  if (named !== "/") return named;
  return visit.pendingInvitation ? `/invitations/accept?token=${visit.pendingInvitation}` : "/";
}

/** The invitation token a return path names (the sign-up of an invited visitor), if any. */
export function invitationOfReturn(value: string): string | undefined {
  return value === "/" ? undefined : (new URLSearchParams(value.slice(value.indexOf("?"))).get("token") ?? undefined);
}

const lockout = (visit: Visit) => ({ attempts: visit.rules.signInAttempts, minutes: visit.rules.lockoutMinutes });

export function signInPage(
  visit: Visit,
  state: { error?: ApiError; email?: string; notice?: string } = {},
  status = 200,
): Reply {
  const { t } = visit;
  const error = state.error;
  const returnTo = returnOf(visit);
  const refusal = refusalOf(visit, error, {
    email: { id: "field-email", label: t("console.email") },
    password: { id: "field-password", label: t("console.password") },
  });
  let message = refusal.general;
  if (error?.code === "developer.too_many_attempts" || error?.code === "developer.rate_limited")
    message = `${message} ${t("console.lockoutRule", lockout(visit))}`;
  const unverified = error?.code === "developer.email_not_verified";
  // The refusal is said once, in the error summary; what to do about an unverified address stays by the form.
  const body = html`${state.notice ? alert("ok", state.notice) : ""}${unverified ? html`<p><a href="/resend-verification">${t("console.resendVerificationLink")}</a></p>` : ""}
${postForm(
  "/sign-in",
  visit.csrf,
  html`${field({ label: t("console.email"), name: "email", type: "email", autocomplete: "username", required: true, value: state.email, error: refusal.at("email"), ltr: true })}
${field({ label: t("console.password"), name: "password", type: "password", autocomplete: "current-password", required: true, error: refusal.at("password"), hint: t("console.lockoutRule", lockout(visit)) })}
<div class="actions">${button(t("console.signIn"))}</div>`,
  { hidden: { return_to: returnTo === "/" ? undefined : returnTo } },
)}
<p><a href="/forgot-password">${t("console.forgotPassword")}</a></p>
<p>${t("console.noAccount")} <a href="/sign-up">${t("console.signUp")}</a></p>`;
  const problems = message ? [{ text: message }] : refusal.problems;
  return visit.page(t("console.signInTitle"), body, { status, narrow: true, problems });
}

export function signUpPage(visit: Visit, state: { error?: ApiError; email?: string } = {}, status = 200): Reply {
  const { t } = visit;
  // An invited visitor's sign-up keeps the invitation, to come back to it after the verification mail.
  const returnTo = safeReturn(visit.form.get("return_to") ?? visit.query.get("return_to"));
  const refusal = refusalOf(visit, state.error, {
    email: { id: "field-email", label: t("console.email") },
    password: { id: "field-password", label: t("console.password") },
  });
  const body = html`<p>${t("console.signUpIntro")}</p>
${postForm(
  "/sign-up",
  visit.csrf,
  html`${field({ label: t("console.email"), name: "email", type: "email", autocomplete: "email", required: true, value: state.email, error: refusal.at("email"), ltr: true })}
${field({ label: t("console.password"), name: "password", type: "password", autocomplete: "new-password", required: true, hint: t("console.passwordRules"), error: refusal.at("password") })}
<div class="actions">${button(t("console.createAccount"))}</div>`,
  { hidden: { return_to: returnTo === "/" ? undefined : returnTo } },
)}
<p>${t("console.haveAccount")} <a href="${signInHref(returnTo)}">${t("console.signIn")}</a></p>`;
  return visit.page(t("console.signUpTitle"), body, { status, narrow: true, problems: refusal.problems });
}

export async function signUp(visit: Visit): Promise<Reply> {
  const email = visit.form.get("email") ?? "";
  const result = await visit.api("signUp", { email, password: visit.form.get("password") ?? "" });
  if (!result.ok) return signUpPage(visit, { error: result.error, email }, result.error.status);
  // The same answer whether or not the address had an account (the API's rule): check your mail.
  const invited = safeReturn(visit.form.get("return_to")) !== "/";
  return visit.page(
    t(visit, "console.checkMailTitle"),
    html`${alert("ok", visit.t("console.checkMailText", { email }))}<p>${visit.t("console.checkMailNext")}</p>${invited ? html`<p>${visit.t("console.checkMailInvitation")}</p>` : ""}${mailedLocally(visit)}<p><a href="/resend-verification">${visit.t("console.resendVerificationLink")}</a></p>`,
    { narrow: true },
  );
}

const t = (visit: Visit, key: Parameters<Visit["t"]>[0]) => visit.t(key);

/** The sign-in page, leading back to `returnTo` when it is not the dashboard. */
const signInHref = (returnTo: string) =>
  returnTo === "/" ? "/sign-in" : `/sign-in?return_to=${encodeURIComponent(returnTo)}`;

/** The mailed link lands here and completes the verification at once. */
export async function verifyEmail(visit: Visit): Promise<Reply> {
  const result = await visit.api("verifyEmail", { token: visit.query.get("token") ?? "" });
  // The language switch of this page must not carry the used token back (a second use is refused).
  const query = new URLSearchParams();
  if (!result.ok) {
    return visit.page(
      visit.t("console.verifyFailedTitle"),
      html`${alert("error", errorText(result.error, visit.locale, visit.t))}<p><a href="/resend-verification">${visit.t("console.resendVerificationLink")}</a></p>`,
      { status: result.error.status, narrow: true, query },
    );
  }
  return visit.page(
    visit.t("console.verifiedTitle"),
    html`${alert("ok", visit.t("console.verifiedText"))}<p><a class="button" href="${signInHref(returnOf(visit))}">${visit.t("console.signIn")}</a></p>`,
    { narrow: true, query },
  );
}

export function forgotPasswordPage(
  visit: Visit,
  state: { error?: ApiError; email?: string; resend?: boolean } = {},
  status = 200,
): Reply {
  const { t } = visit;
  const refusal = refusalOf(visit, state.error, { email: { id: "field-email", label: t("console.email") } });
  const action = state.resend ? "/resend-verification" : "/forgot-password";
  const body = html`<p>${state.resend ? t("console.resendIntro") : t("console.forgotIntro")}</p>
${postForm(
  action,
  visit.csrf,
  html`${field({ label: t("console.email"), name: "email", type: "email", autocomplete: "email", required: true, value: state.email, error: refusal.at("email"), ltr: true })}
<div class="actions">${button(state.resend ? t("console.sendVerification") : t("console.sendResetLink"))}</div>`,
)}
<p><a href="/sign-in">${t("console.signIn")}</a></p>`;
  return visit.page(state.resend ? t("console.resendTitle") : t("console.forgotTitle"), body, {
    status,
    narrow: true,
    problems: refusal.problems,
  });
}

/**
 * A password reset request; also the resend of a verification link: the console API has no resend of its own,
 * and opening a reset link verifies the address (docs/decisions.md, "Console site").
 */
export async function requestReset(visit: Visit, resend: boolean): Promise<Reply> {
  const email = visit.form.get("email") ?? "";
  const result = await visit.api("requestPasswordReset", { email });
  if (!result.ok) return forgotPasswordPage(visit, { error: result.error, email, resend }, result.error.status);
  return visit.page(
    visit.t("console.checkMailTitle"),
    html`${alert("ok", visit.t("console.resetSentText", { email }))}<p>${visit.t("console.resetSentNext")}</p>${mailedLocally(visit)}`,
    { narrow: true },
  );
}

export function resetPasswordPage(visit: Visit, state: { error?: ApiError } = {}, status = 200): Reply {
  const { t } = visit;
  const token = visit.form.get("token") ?? visit.query.get("token") ?? "";
  const refusal = refusalOf(visit, state.error, {
    newPassword: { id: "field-newPassword", label: t("console.newPassword") },
  });
  // The refusal (a used or expired link) is said in the summary; the way to a new link stays here.
  const general = refusal.general ? html`<p><a href="/forgot-password">${t("console.sendResetLink")}</a></p>` : "";
  const body = html`${general}
${postForm(
  "/reset-password",
  visit.csrf,
  html`${field({ label: t("console.newPassword"), name: "newPassword", type: "password", autocomplete: "new-password", required: true, hint: t("console.passwordRules"), error: refusal.at("newPassword") })}
<div class="actions">${button(t("console.setPassword"))}</div>`,
  { hidden: { token } },
)}`;
  // The switch links keep the token: the form is not used yet.
  return visit.page(t("console.resetTitle"), body, { status, narrow: true, problems: refusal.problems });
}

export async function resetPassword(visit: Visit): Promise<Reply> {
  const result = await visit.api("resetPassword", {
    token: visit.form.get("token") ?? "",
    newPassword: visit.form.get("newPassword") ?? "",
  });
  if (!result.ok) return resetPasswordPage(visit, { error: result.error }, result.error.status);
  return visit.page(
    visit.t("console.resetDoneTitle"),
    html`${alert("ok", visit.t("console.resetDoneText"))}<p><a class="button" href="/sign-in">${visit.t("console.signIn")}</a></p>`,
    { narrow: true },
  );
}

/** The account's program state in words (the dashboard and the program page). */
export function programStateText(visit: Visit, state: ProgramApplicationState): string {
  switch (state) {
    case ProgramApplicationState.PENDING:
      return visit.t("console.programPending");
    case ProgramApplicationState.APPROVED:
      return visit.t("console.programApproved");
    case ProgramApplicationState.DECLINED:
      return visit.t("console.programDeclined");
    default:
      return visit.t("console.programNone");
  }
}

/**
 * Where a mailed link is when mail goes to the log (MAIL_TRANSPORT=log, a local run): the `console mail` line of the
 * server's output, its `link` field; no file is written. Nothing with a real mail transport.
 */
export function mailedLocally(visit: Visit): SafeHtml | string {
  if (!visit.mailInLog) return "";
  return alert("info", html`<p>${visit.t("console.mailInLogText")}</p><p>${visit.t("console.mailInLogWhere")}</p>`);
}
