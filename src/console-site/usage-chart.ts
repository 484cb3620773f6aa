// The usage page's chart: requests a minute over 24 hours as bars, each minute's 429s over them in the danger colour,
// and the per-app limit as a dashed line. Inline SVG coloured by the stylesheet (dark mode and the CSP both hold), with
// no viewBox: the plot's x positions are percentages of the chart's width and its y positions CSS pixels, so the
// chart takes the column's width while its labels keep the page's 12 px (a viewBox scaled them to about 4 px at 375).
// The scale is the data's: the axis ends at a round number at or above the busiest minute, so a few calls a minute
// fill the chart instead of hugging its floor under a limit of 300; the limit is drawn where it falls, or along the
// top edge, said to be above the scale, when the traffic is far below it.
import type { GetAppUsageResponse } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { formatNumber, type Locale } from "../web/i18n.js";

/** The chart's height and its plot's edges, in CSS pixels (its width is the column's). */
export const chartBox = { height: 220, top: 22, bottom: 190 };

/** The smallest of 1, 2 and 5 times a power of ten at or above `value` (1 at least): the axis's end. */
export function axisTop(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const percent = (fraction: number) => `${(Math.min(Math.max(fraction, 0), 1) * 100).toFixed(3)}%`;

export interface UsageChartWords {
  /** The chart's accessible name (the table below says the same by hour). */
  title: string;
  /** The limit line's label, and its label when the limit is above the scale. */
  limit: string;
  limitAbove: string;
}

export function usageChart(usage: GetAppUsageResponse, locale: Locale, words: UsageChartWords): SafeHtml {
  const from = Number(usage.fromMs);
  const to = Number(usage.toMs);
  const busiest = Math.max(0, ...usage.minutes.map((minute) => minute.requests));
  const top = axisTop(busiest);
  const plotHeight = chartBox.bottom - chartBox.top;
  const y = (value: number) => chartBox.bottom - (Math.min(value, top) / top) * plotHeight;
  const x = (ms: number) => percent((ms - from) / (to - from));
  // A minute is a 2 px line at its start (1,440 minutes in a phone's 300 px: a rectangle a minute wide would not show).
  const bars = usage.minutes.map((minute) => {
    const at = x(Number(minute.minuteMs));
    const requests = html`<line class="chart-requests" x1="${at}" x2="${at}" y1="${chartBox.bottom}" y2="${y(minute.requests).toFixed(1)}"></line>`;
    const limited =
      minute.limited > 0
        ? html`<line class="chart-limited" x1="${at}" x2="${at}" y1="${chartBox.bottom}" y2="${y(minute.limited).toFixed(1)}"></line>`
        : "";
    return html`${requests}${limited}`;
  });
  // Grid lines at 0, the middle (when it is a whole number of calls) and the top, each labelled above its line.
  const levels = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  const grid = levels.map(
    (level) =>
      html`<line class="chart-grid" x1="0" x2="100%" y1="${y(level).toFixed(1)}" y2="${y(level).toFixed(1)}"></line><text class="chart-axis" x="0" y="${(y(level) - 4).toFixed(1)}" text-anchor="start">${formatNumber(locale, level)}</text>`,
  );
  // 24-hour times ("05:21", not "05:21 ص"): five of them fit a phone's width without touching.
  const hourFormat = new Intl.DateTimeFormat(locale, {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: "UTC",
  });
  const ticks = [0, 6, 12, 18, 24].map((hours) => {
    const at = from + hours * 3600_000;
    const anchor = hours === 0 ? "start" : hours === 24 ? "end" : "middle";
    return html`<text class="chart-axis" x="${x(at)}" y="${chartBox.height - 8}" text-anchor="${anchor}">${hourFormat.format(at)}</text>`;
  });
  const above = usage.limitPerMinute > top;
  const limitY = (above ? chartBox.top : y(usage.limitPerMinute)).toFixed(1);
  return html`<svg class="usage-chart" width="100%" height="${chartBox.height}" role="img" aria-labelledby="chart-title" focusable="false" direction="ltr" data-axis-top="${top}">
<title id="chart-title">${words.title}</title>
${grid}
${bars}
<line class="chart-limit${above ? " chart-limit-above" : ""}" x1="0" x2="100%" y1="${limitY}" y2="${limitY}"></line>
<text class="chart-limit-label" x="100%" y="${(Number(limitY) - 4).toFixed(1)}" text-anchor="end">${above ? words.limitAbove : words.limit}</text>
${ticks}
</svg>`;
}
