// Reading a Prometheus text-format scrape in tests: one sample's value by name and exact label set.

/** The value of one sample line `name{labels} value` in a scrape, or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.keys(got).length === wanted.length && wanted.every(([key, value]) => got[key] === value))
      return Number(match[3]);
  }
  return undefined;
}

/** Scrapes GET /metrics on the internal port (cleartext HTTP/1.1). */
export async function scrape(grpcPort: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${grpcPort}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

/** The sum of every sample of `name`, whatever its labels (0 when absent). */
export function total(text: string, name: string): number {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}
