// Sizes the libuv thread pool before anything uses it (`node --require` runs this before the ESM loader, whose
// file reads start the pool; a variable set later is ignored). Every RS256 signature runs there (access and console
// tokens: src/token/access-token.ts), next to file reads, DNS lookups and the console's scrypt: one thread per core
// for the signatures plus libuv's default four for the rest. An operator's UV_THREADPOOL_SIZE wins.
"use strict";
const { availableParallelism } = require("node:os");
if (!process.env.UV_THREADPOOL_SIZE)
  process.env.UV_THREADPOOL_SIZE = String(Math.min(1024, availableParallelism() + 4));
