// Redis behind Sentinel: REDIS_SENTINELS (the sentinels' host:port list) and REDIS_SENTINEL_NAME (the primary's
// group name, as in `sentinel monitor <name> ...`). The client asks the sentinels which server is the primary and
// asks again after every reconnection, so a failover needs no change here (docs/deployment.md, "Redis Sentinel").
// REDIS_URL may come with them for the primary's credentials and database number only; its host must then be the
// group name (redis://:secret@mymaster/0, the convention of redis-rb and Sidekiq), so nobody believes an address
// written there is used.
import { commaList } from "./comma-list.js";
import { z } from "zod";

/** Sentinel's own default port, taken when an entry names none. */
export const defaultSentinelPort = 26379;

export interface SentinelAddress {
  host: string;
  port: number;
}

export interface RedisSentinelConfig {
  sentinels: SentinelAddress[];
  /** The monitored primary's name. */
  name: string;
}

/** One entry: host, host:port, IPv4 or a bracketed IPv6 ([::1]:26379); undefined when it is none of those. */
function sentinelAddress(entry: string): SentinelAddress | undefined {
  if (/[\s/?#@]/.test(entry)) return undefined;
  const parsed = URL.parse(`redis://${entry}`);
  if (!parsed || parsed.hostname === "") return undefined;
  const port = parsed.port === "" ? defaultSentinelPort : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
}

/** REDIS_SENTINELS: comma separated; each entry must read as an address, or the start stops naming it. */
export const sentinelList = z.string().transform((text, context) => {
  const entries = commaList(text);
  const unreadable = entries.filter((entry) => sentinelAddress(entry) === undefined);
  if (unreadable.length > 0)
    context.addIssue({
      code: "custom",
      message: `not host:port: ${unreadable.join(", ")} (e.g. 10.0.0.5:26379,[fd00::5]:26379)`,
    });
  if (entries.length === 0) context.addIssue({ code: "custom", message: "lists no sentinel" });
  return entries.flatMap((entry) => sentinelAddress(entry) ?? []);
});

/** REDIS_SENTINEL_NAME: what Sentinel accepts as a primary's name. */
export const sentinelName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "a Sentinel primary name: letters, digits, '.', '_' or '-' (e.g. mymaster)");

/**
 * Checks the three variables together; returns the problems (each naming its variable) and the setting when
 * Sentinel is configured.
 */
export function redisSentinelSetting(v: {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS?: SentinelAddress[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
}): { problems: string[]; sentinel: RedisSentinelConfig | undefined } {
  const { REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: name } = v;
  if (sentinels === undefined && name === undefined) return { problems: [], sentinel: undefined };
  if (sentinels === undefined || name === undefined)
    return {
      problems: ["REDIS_SENTINELS and REDIS_SENTINEL_NAME go together: set both or neither"],
      sentinel: undefined,
    };
  const problems: string[] = [];
  if (v.REDIS_URL !== undefined) {
    const url = URL.parse(v.REDIS_URL);
    if (url?.protocol !== "redis:" || url.hostname !== name || url.port !== "")
      problems.push(
        `REDIS_URL: with REDIS_SENTINELS it gives only the primary's credentials and database, and its host must be REDIS_SENTINEL_NAME with no port (redis://:password@${name}/0): the sentinels say where the primary is`,
      );
  }
  return { problems, sentinel: problems.length === 0 ? { sentinels, name } : undefined };
}
