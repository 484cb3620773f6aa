/** A port in 20000-32767 nothing listens on now (scripts/free-port.mjs). */
export function freePort(): Promise<number>;
