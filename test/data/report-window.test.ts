// src/data/report-window.ts: the date window of a report (spec: `from` and `to` as YYYY-MM-DD, span at most 31 days
// counting both ends), and which catalogue code a bad window answers with.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { checkReportWindow, maxWindowDays } from "../../src/data/report-window.js";

const ReportWindow = suite("data/report-window");

ReportWindow("spec: a window spans at most 31 days, so 1 to 31 January fits exactly", () => {
  assert.is(maxWindowDays, 31);
  assert.equal(checkReportWindow("2026-01-01", "2026-01-31"), {
    ok: true,
    from: "2026-01-01",
    to: "2026-01-31",
    days: 31,
  });
  assert.equal(checkReportWindow("2026-01-01", "2026-02-01"), { ok: false, code: "partner.window_too_large" });
});

ReportWindow("both ends count: one day is a window of 1; a window may cross months and years", () => {
  assert.equal(checkReportWindow("2026-03-05", "2026-03-05"), {
    ok: true,
    from: "2026-03-05",
    to: "2026-03-05",
    days: 1,
  });
  assert.equal(checkReportWindow("2025-12-15", "2026-01-14"), {
    ok: true,
    from: "2025-12-15",
    to: "2026-01-14",
    days: 31,
  });
  assert.equal(checkReportWindow("2025-12-15", "2026-01-15"), { ok: false, code: "partner.window_too_large" });
  assert.equal(checkReportWindow("2024-02-28", "2024-03-01"), {
    ok: true,
    from: "2024-02-28",
    to: "2024-03-01",
    days: 3,
  });
  assert.equal(checkReportWindow("2026-03-28", "2026-03-30"), {
    ok: true,
    from: "2026-03-28",
    to: "2026-03-30",
    days: 3,
  });
});

ReportWindow("`to` before `from` is an invalid window, not a large one", () => {
  assert.equal(checkReportWindow("2026-01-02", "2026-01-01"), { ok: false, code: "partner.invalid_window" });
  assert.equal(checkReportWindow("2026-12-31", "2025-01-01"), { ok: false, code: "partner.invalid_window" });
});

ReportWindow(
  "only real calendar dates written YYYY-MM-DD: 2026-02-30 and 2025-02-29 are not dates, 2024-02-29 is",
  () => {
    assert.equal(checkReportWindow("2024-02-29", "2024-02-29"), {
      ok: true,
      from: "2024-02-29",
      to: "2024-02-29",
      days: 1,
    });
    for (const bad of [
      "2026-02-30",
      "2025-02-29",
      "2026-13-01",
      "2026-00-10",
      "2026-01-00",
      "2026-1-01",
      "2026-01-1",
      "26-01-01",
      "2026/01/01",
      "2026-01-01T00:00:00Z",
      " 2026-01-01",
      "",
      "today",
    ]) {
      assert.equal(checkReportWindow(bad, "2026-01-20"), { ok: false, code: "partner.invalid_window" }, `from ${bad}`);
      assert.equal(checkReportWindow("2026-01-01", bad), { ok: false, code: "partner.invalid_window" }, `to ${bad}`);
    }
  },
);

ReportWindow("an unreadable end answers invalid_window even when the span would also be too large", () => {
  assert.equal(checkReportWindow("2020-01-01", "2026-02-30"), { ok: false, code: "partner.invalid_window" });
});

ReportWindow.run();
