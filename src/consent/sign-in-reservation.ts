// The consent sign-in's two atomic steps (docs/decisions.md, "Hostile input and silent dependencies"), each written
// twice with the same rule: in Lua for Redis and over the in-process map for the embedded defaults.
// - reserve: counts the attempt for its address, and unless the address, the pair (account, address) or the account's
//   queue refuses it, reserves it on the pair and on the account before its password is checked, so attempts sent
//   in parallel can never pass a ceiling between a read and a write;
// - release: gives a successful attempt's reservations back and remembers the pair as the owner's.
import type { AtomicScript, LocalEntries } from "../storage/key-value.js";

/** reserve's first result: what became of the attempt. The second is the wait (admitted) or the refusal's ms. */
export const reserveOutcome = { admitted: 0, addressFull: 1, pairFull: 2, accountQueueFull: 3 } as const;

/** The keys reserve reads and writes, in this order. */
export interface ReserveKeys {
  /** Every attempt of the source address in this window. */
  address: string;
  /** Failures and attempts in flight of (account, address) in this window. */
  pair: string;
  /** Failures and attempts in flight of the account, from every address, in this window. */
  account: string;
  /** The time of the account's last queued slot (ms on the caller's clock); not per window. */
  accountQueue: string;
  /** Set while the pair counts as the owner's (a sign-in from that address succeeded). */
  known: string;
}

/** The arguments of reserve, numbers all. */
export interface ReserveArgs {
  nowMs: number;
  /** Attempts per address per window. */
  addressLimit: number;
  /** CONSENT_SIGN_IN_LIMIT: the pair's ceiling, and the account's count past which its attempts wait. */
  ceiling: number;
  /** The longest wait; a slot further away is refused. */
  maxDelayMs: number;
  /** How long a window's counter is kept (past its window's end). */
  counterTtlMs: number;
}

export const reserveKeys = (keys: ReserveKeys) => [
  keys.address,
  keys.pair,
  keys.account,
  keys.accountQueue,
  keys.known,
];
export const reserveArgs = (args: ReserveArgs) => [
  args.nowMs,
  args.addressLimit,
  args.ceiling,
  args.maxDelayMs,
  args.counterTtlMs,
];

/** The wait of the account's k-th attempt in a window: none up to the ceiling, then 1 s doubling, capped. */
export function accountDelayMs(k: number, ceiling: number, maxDelayMs: number): number {
  return k <= ceiling ? 0 : Math.min(1000 * 2 ** Math.min(k - ceiling - 1, 30), maxDelayMs);
}

// An attempt past the account's ceiling from a pair that is not the owner's takes the next slot of the account's
// queue: its delay after the later of now and the last slot. A slot more than maxDelay away is refused (with the
// time until one would fit), so the account's guesses come one per delay step whatever the number of addresses.
const reserveLua = `
local now, addressLimit, ceiling, maxDelay, ttl =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function add(key, by)
  local count = redis.call('INCRBY', key, by)
  if redis.call('PTTL', key) == -1 then redis.call('PEXPIRE', key, ttl) end
  return count
end
if add(KEYS[1], 1) > addressLimit then return {1, 0} end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= ceiling then return {2, 0} end
local k = tonumber(redis.call('GET', KEYS[3]) or '0') + 1
local wait = 0
if k > ceiling then wait = math.min(1000 * 2 ^ math.min(k - ceiling - 1, 30), maxDelay) end
if wait > 0 and redis.call('EXISTS', KEYS[5]) == 0 then
  local slot = math.max(now, tonumber(redis.call('GET', KEYS[4]) or '0')) + wait
  if slot - now > maxDelay then return {3, slot - maxDelay - now} end
  redis.call('SET', KEYS[4], string.format('%.0f', slot), 'PX', string.format('%.0f', slot - now + ttl))
  wait = slot - now
end
add(KEYS[2], 1)
add(KEYS[3], 1)
return {0, wait}`;

function reserveLocal(entries: LocalEntries, keys: string[], args: number[]): number[] {
  const [address, pair, account, queue, known] = keys as [string, string, string, string, string];
  const [now, addressLimit, ceiling, maxDelay, ttl] = args as [number, number, number, number, number];
  if (entries.incrBy(address, 1, ttl) > addressLimit) return [reserveOutcome.addressFull, 0];
  if (Number(entries.get(pair) ?? 0) >= ceiling) return [reserveOutcome.pairFull, 0];
  let wait = accountDelayMs(Number(entries.get(account) ?? 0) + 1, ceiling, maxDelay);
  if (wait > 0 && entries.get(known) === null) {
    const slot = Math.max(now, Number(entries.get(queue) ?? 0)) + wait;
    if (slot - now > maxDelay) return [reserveOutcome.accountQueueFull, slot - maxDelay - now];
    entries.set(queue, String(slot), slot - now + ttl);
    wait = slot - now;
  }
  entries.incrBy(pair, 1, ttl);
  entries.incrBy(account, 1, ttl);
  return [reserveOutcome.admitted, wait];
}

export const reserveScript: AtomicScript = { name: "consentSignInReserve", lua: reserveLua, local: reserveLocal };

/** Keys: pair, account (the window's, as reserved), known. Args: how long the pair stays the owner's. */
const releaseLua = `
for i = 1, 2 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
return {0}`;

function releaseLocal(entries: LocalEntries, keys: string[], args: number[]): number[] {
  const [pair, account, known] = keys as [string, string, string];
  for (const key of [pair, account]) if (Number(entries.get(key) ?? 0) > 0) entries.incrBy(key, -1, 1);
  entries.set(known, "1", args[0]!);
  return [0];
}

export const releaseScript: AtomicScript = { name: "consentSignInRelease", lua: releaseLua, local: releaseLocal };
