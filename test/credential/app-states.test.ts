// src/credential/app-states.ts: the review life of an app, DRAFT -> IN_REVIEW -> APPROVED or REJECTED, resubmission
// after a rejection, archiving from any state but ARCHIVED.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { nextAppState, type AppState, type AppTransition } from "../../src/credential/app-states.js";

const AppStates = suite("credential/app-states");

AppStates(
  "app states: submit from DRAFT/REJECTED, approve and reject from IN_REVIEW, archive from all but ARCHIVED",
  () => {
    assert.is(nextAppState("DRAFT", "submit"), "IN_REVIEW");
    assert.is(nextAppState("REJECTED", "submit"), "IN_REVIEW");
    assert.is(nextAppState("APPROVED", "submit"), undefined);
    assert.is(nextAppState("IN_REVIEW", "approve"), "APPROVED");
    assert.is(nextAppState("DRAFT", "approve"), undefined);
    assert.is(nextAppState("IN_REVIEW", "reject"), "REJECTED");
    assert.is(nextAppState("APPROVED", "reject"), undefined);
    assert.is(nextAppState("APPROVED", "archive"), "ARCHIVED");
    assert.is(nextAppState("ARCHIVED", "archive"), undefined);
  },
);

AppStates("the whole table: every state against every transition", () => {
  const states: AppState[] = ["DRAFT", "IN_REVIEW", "APPROVED", "REJECTED", "ARCHIVED"];
  const transitions: AppTransition[] = ["submit", "approve", "reject", "archive"];
  const table = states.map((state) => [state, ...transitions.map((t) => nextAppState(state, t) ?? "-")]);
  assert.equal(table, [
    ["DRAFT", "IN_REVIEW", "-", "-", "ARCHIVED"],
    ["IN_REVIEW", "-", "APPROVED", "REJECTED", "ARCHIVED"],
    ["APPROVED", "-", "-", "-", "ARCHIVED"],
    ["REJECTED", "IN_REVIEW", "-", "-", "ARCHIVED"],
    ["ARCHIVED", "-", "-", "-", "-"],
  ]);
});

AppStates.run();
