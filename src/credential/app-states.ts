// The life of an app (docs/decisions.md, "Credentials"): DRAFT -> IN_REVIEW -> APPROVED or REJECTED, REJECTED can
// be submitted again, and any state can be archived for good.

export type AppState = "DRAFT" | "IN_REVIEW" | "APPROVED" | "REJECTED" | "ARCHIVED";

/** The review actions and the states each may start from. */
export type AppTransition = "submit" | "approve" | "reject" | "archive";

const from: Readonly<Record<AppTransition, readonly AppState[]>> = {
  submit: ["DRAFT", "REJECTED"],
  approve: ["IN_REVIEW"],
  reject: ["IN_REVIEW"],
  archive: ["DRAFT", "IN_REVIEW", "APPROVED", "REJECTED"],
};

const to: Readonly<Record<AppTransition, AppState>> = {
  submit: "IN_REVIEW",
  approve: "APPROVED",
  reject: "REJECTED",
  archive: "ARCHIVED",
};

/** The state after `transition`, or undefined when it may not start from `state`. */
export function nextAppState(state: AppState, transition: AppTransition): AppState | undefined {
  return from[transition].includes(state) ? to[transition] : undefined;
}
