// Which test files share a uvu process (scripts/run-tests.mjs). A light file spends most of its process's CPU on
// starting Node and loading modules, not on its tests: 94 files under 4 s each cost 73 s of CPU one process each
// and 26 s in a single one (docs/testing.md, "Light files share a process"). So files known to be light run in
// batches, one uvu process each; every other file keeps a process of its own.

/** A file at most this long (its last run, or the estimate of a file never timed) is light. */
export const lightFileMs = 3_000;
/** A batch holds files whose times add up to about this, so the end of a run still spreads over every worker. */
export const batchBudgetMs = 12_000;
/** And at most this many files, so a batch's output stays readable. */
export const batchMaxFiles = 16;

/**
 * The units of a run, longest first: arrays of files, one file each except the batches of light files. Only files
 * under `test/` are batched (uvu finds a batch's files under one directory) and only those `canShare` allows (the
 * runner keeps apart a file loaded another way). `expected` is a file's expected time in ms.
 */
export function planUnits(files, expected, canShare) {
  const byTime = [...files].sort((a, b) => expected(b) - expected(a));
  const units = [];
  let batch = [];
  let batchMs = 0;
  const close = () => {
    if (batch.length > 0) units.push(batch);
    batch = [];
    batchMs = 0;
  };
  for (const file of byTime) {
    const ms = expected(file);
    if (ms > lightFileMs || !file.startsWith("test/") || !canShare(file)) {
      units.push([file]);
      continue;
    }
    if (batch.length > 0 && (batchMs + ms > batchBudgetMs || batch.length >= batchMaxFiles)) close();
    batch.push(file);
    batchMs += ms;
  }
  close();
  const unitMs = (unit) => unit.reduce((sum, file) => sum + expected(file), 0);
  return units.sort((a, b) => unitMs(b) - unitMs(a));
}

/** uvu's CLI arguments for a unit: a directory and a pattern matched (case-insensitively) against paths inside it. */
export function uvuArguments(unit) {
  const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (unit.length === 1) {
    const file = unit[0];
    const slash = file.lastIndexOf("/");
    return [slash === -1 ? "." : file.slice(0, slash), `^${literal(file.slice(slash + 1))}$`];
  }
  return ["test", `^(${unit.map((file) => literal(file.slice("test/".length))).join("|")})$`];
}

/**
 * Each file's share of a batch's time, for the timings file: the batch's time split in proportion to the files'
 * expected times. A file grown slow raises its batch-mates too, and the next run's times sort it out: past
 * lightFileMs, a file runs alone and is timed alone.
 */
export function sharesOf(unit, ms, expected) {
  const total = unit.reduce((sum, file) => sum + expected(file), 0);
  return unit.map((file) => [file, Math.round(total > 0 ? (ms * expected(file)) / total : ms / unit.length)]);
}
