// deploy/prometheus/ and deploy/grafana/: the rules load (promtool check rules), each alert fires where it should and
// stays quiet where it should (promtool test rules, deploy/prometheus/rules.test.yml), every metric the rules and the
// dashboard read is one this program exports, and every alert links to its runbook's section. CI installs Debian's
// prometheus package, which brings promtool.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as assert from "uvu/assert";
import { parse } from "yaml";
import { createMetrics } from "../../src/runtime/metrics.js";
import { suite } from "../support/suite.js";

const Rules = suite("deploy/prometheus");
const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  annotations?: Record<string, string>;
}
const rules = (parse(read("deploy/prometheus/rules.yml")) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (group) => group.rules,
);
const dashboard = JSON.parse(read("deploy/grafana/partner-api.json")) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

/**
 * The series names this program exports: every metric of its registry, a histogram's three series each, the gauges a
 * delivering or token-issuing process registers when it starts following them included.
 */
async function exportedSeries(): Promise<Set<string>> {
  const registered = createMetrics();
  registered.followWebhookBacklog(async () => ({ outbox: 0, attempt: 0 }));
  registered.followSigningKey(async () => 0);
  const metrics = await registered.registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap((metric) =>
      // prom-client types `type` as a numeric enum; at run time it is the text format's name.
      String(metric.type) === "histogram"
        ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
        : [metric.name],
    ),
  );
}

/** The metric names an expression reads: ours, the process's and Node's, and recording rules (with a colon). */
const namesIn = (expr: string) => [
  ...new Set(expr.match(/\b(?:partnerapi[_:][a-z0-9_:]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g) ?? []),
];

function promtool(args: string[]): string {
  return execFileSync("promtool", args, { cwd: `${root}deploy/prometheus`, encoding: "utf8", stdio: "pipe" });
}

Rules("promtool: the rules load, and each alert's unit tests pass", () => {
  assert.match(promtool(["check", "rules", "rules.yml"]), `SUCCESS: ${rules.length} rules found`);
  assert.match(promtool(["test", "rules", "rules.test.yml"]), "SUCCESS");
  // Every alert has at least one test that expects it to fire.
  const tests = read("deploy/prometheus/rules.test.yml");
  for (const rule of rules.filter((each) => each.alert)) {
    assert.match(tests, new RegExp(`alertname: ${rule.alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`), rule.alert);
  }
});

Rules("the rules and the dashboard read only metrics this program exports or the rules record", async () => {
  const exported = await exportedSeries();
  const recorded = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));
  const known = (name: string) => exported.has(name) || recorded.has(name);
  for (const rule of rules) {
    const expr = rule.expr;
    assert.ok(namesIn(expr).length > 0, `${rule.alert ?? rule.record} reads a metric`);
    assert.equal(
      namesIn(expr).filter((name) => !known(name)),
      [],
      `${rule.alert ?? rule.record}`,
    );
  }
  assert.ok(dashboard.panels.length >= 10);
  for (const panel of dashboard.panels) {
    for (const target of panel.targets) {
      assert.ok(namesIn(target.expr).length > 0, panel.title);
      assert.equal(
        namesIn(target.expr).filter((name) => !known(name)),
        [],
        panel.title,
      );
    }
  }
});

Rules("every alert links to a section of docs/runbooks.md, and every section is an alert's", () => {
  const runbooks = read("docs/runbooks.md");
  const sections = [...runbooks.matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
  const alerts = rules.flatMap((rule) => (rule.alert ? [rule] : []));
  for (const alert of alerts) {
    assert.is(alert.annotations?.["runbook_url"], `docs/runbooks.md#${alert.alert!.toLowerCase()}`, alert.alert);
    assert.ok(sections.includes(alert.alert!), `docs/runbooks.md has a section ${alert.alert}`);
  }
  assert.equal(
    sections,
    alerts.map((alert) => alert.alert),
  );
});

Rules.run();
