// How the test processes (and the programs they start) load TypeScript: Node's own type handling
// (`--experimental-transform-types`: gen/ has enums, src/ parameter properties, so stripping alone is not enough)
// plus this one resolve hook, run in the loading thread (`module.registerHooks`, Node 22.15+/24; not
// `module.register`, whose hooks run on a thread of their own and cost a message per import).
//
// The sources import each other as `./x.js` (TypeScript's NodeNext spelling, which the build keeps), and there is
// no x.js beside x.ts: the hook answers a relative `.js` import from outside node_modules with the `.ts` file
// beside it when that exists. Nothing else of tsx's is needed: no tsconfig paths, no extensionless imports, no
// decorators; JSON, CommonJS and `createRequire` are Node's own. docs/testing.md ("How files are loaded") has the
// figures, docs/decisions.md ("How tests load TypeScript") the reasons.
//
//   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./scripts/test-loader.mjs x.ts
import { existsSync } from "node:fs";
import { enableCompileCache, registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

/** The `.ts` file a relative `./x.js` (or `.mjs`, `.cjs`) import of a source file means, when there is one. */
function typeScriptSibling(specifier, parentURL) {
  if (!parentURL?.startsWith("file:") || parentURL.includes("/node_modules/")) return undefined;
  if (!(specifier.startsWith("./") || specifier.startsWith("../"))) return undefined;
  const match = /\.([mc]?)js$/.exec(specifier);
  if (!match) return undefined;
  const candidate = new URL(`${specifier.slice(0, -match[0].length)}.${match[1]}ts`, parentURL);
  return existsSync(fileURLToPath(candidate)) ? candidate.href : undefined;
}

// V8's code cache and, for TypeScript, the transformed source, kept between processes (under $NODE_COMPILE_CACHE, else
// the temporary directory's node-compile-cache/; keyed by Node's version and each file's content): a test process
// then loads src/app.ts in 0.7 s of CPU instead of 1.2 s. What a process compiled is written when it exits.
enableCompileCache();

registerHooks({
  resolve(specifier, context, nextResolve) {
    return nextResolve(typeScriptSibling(specifier, context.parentURL) ?? specifier, context);
  },
});
