// The usage chart (src/console-site/usage-chart.ts) drawn from answers of GetAppUsage: its axis ends at a round number
// at or above the busiest minute, not at the limit, so two calls a minute under a limit of 300 fill the plot; the
// limit is a line where it falls, or along the top edge said to be above the scale; no viewBox, so its labels are
// never scaled down (at 375 px a viewBox of 720 made them about 4 px: the browser test measures them).
import { create } from "@bufbuild/protobuf";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { GetAppUsageResponseSchema } from "../../gen/partnerapi/v1/console_service_pb.js";
import { axisTop, chartBox, usageChart } from "../../src/console-site/usage-chart.js";

const Chart = suite("console-site/usage-chart");
const from = Date.UTC(2026, 10, 28, 10, 0);
const to = from + 24 * 3600_000;
const words = { title: "Usage", limit: "Limit 300/min", limitAbove: "Limit 300/min, above this scale" };

function drawn(limitPerMinute: number, minutes: Array<[offsetMinutes: number, requests: number, limited: number]>) {
  const usage = create(GetAppUsageResponseSchema, {
    limitPerMinute,
    fromMs: BigInt(from),
    toMs: BigInt(to),
    minutes: minutes.map(([offset, requests, limited]) => ({
      minuteMs: BigInt(from + offset * 60_000),
      requests,
      limited,
    })),
  });
  return String(usageChart(usage, "en", { ...words, limit: `Limit ${limitPerMinute}/min` }));
}

/** The y of each bar's top (requests), in CSS pixels. */
const barTops = (svg: string) =>
  [...svg.matchAll(/<line class="chart-requests" x1="[^"]+" x2="[^"]+" y1="[^"]+" y2="([^"]+)"/g)].map((m) =>
    Number(m[1]),
  );

Chart("the axis ends at 1, 2 or 5 times a power of ten at or above the busiest minute", () => {
  assert.equal(
    [0, 1, 2, 3, 4, 5, 7, 11, 20, 299, 300, 301, 4_800].map(axisTop),
    [1, 1, 2, 5, 5, 5, 10, 20, 20, 500, 500, 500, 5_000],
  );
});

Chart("two calls a minute under a limit of 300 fill the plot; the limit runs along the top, said above", () => {
  const svg = drawn(300, [
    [60, 2, 0],
    [61, 1, 0],
  ]);
  assert.match(svg, 'data-axis-top="2"');
  assert.equal(barTops(svg), [chartBox.top, (chartBox.top + chartBox.bottom) / 2]);
  assert.match(svg, `<line class="chart-limit chart-limit-above" x1="0" x2="100%" y1="${chartBox.top.toFixed(1)}"`);
  assert.match(svg, `>${words.limitAbove}</text>`);
  assert.not.match(svg, "viewBox");
  // Its grid: 0, 1 and 2, each labelled.
  assert.equal(
    [...svg.matchAll(/<text class="chart-axis" x="0" y="[^"]+" text-anchor="start">([^<]+)<\/text>/g)].map((m) => m[1]),
    ["0", "1", "2"],
  );
});

Chart("traffic over the limit: the limit is drawn where it falls, the 429s over their bar", () => {
  const svg = drawn(3, [[600, 4, 1]]);
  assert.match(svg, 'data-axis-top="5"');
  const plot = chartBox.bottom - chartBox.top;
  const limitY = (chartBox.bottom - (3 / 5) * plot).toFixed(1);
  assert.match(svg, `<line class="chart-limit" x1="0" x2="100%" y1="${limitY}" y2="${limitY}"`);
  assert.match(svg, ">Limit 3/min</text>");
  assert.equal(barTops(svg), [Number((chartBox.bottom - (4 / 5) * plot).toFixed(1))]);
  // The minute at 10 h of 24: its bar at 41.667 % of the width.
  assert.match(svg, '<line class="chart-requests" x1="41.667%" x2="41.667%"');
  assert.match(svg, /<line class="chart-limited" x1="41\.667%" x2="41\.667%" y1="190" y2="[\d.]+"/);
});

Chart("no calls at all: an axis of 1, no bar, the limit above", () => {
  const svg = drawn(300, []);
  assert.match(svg, 'data-axis-top="1"');
  assert.equal(barTops(svg), []);
  assert.match(svg, "chart-limit-above");
});

Chart.run();
