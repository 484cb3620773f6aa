// Runs the floor of one webhook delivery (./plain-delivery.ts) in a process of its own, against `urls` with their
// endpoints' `secrets`, for `calls` deliveries; its figure (CPU per delivery of its process and its backends).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Figure } from "./measure.js";

export async function plainDeliveries(
  databaseUrl: string,
  urls: readonly string[],
  secrets: readonly string[],
  calls: number,
): Promise<Figure> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "bench/support/plain-delivery.ts"],
    {
      env: {
        PATH: process.env["PATH"] ?? "",
        DATABASE_URL: databaseUrl,
        CALLS: String(calls),
        RECEIVERS: urls.map((url, index) => `${url} ${secrets[index]}`).join(" "),
      },
    },
  );
  return JSON.parse(stdout) as Figure;
}
