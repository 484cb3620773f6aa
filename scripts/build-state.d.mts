// Types of build-state.mjs, for the tests that import it.
export declare const buildInputs: string[];
export declare const stampFileName: string;
export declare function inputsDigest(root: string, inputs?: string[]): string;
export declare function buildState(root: string, outDir: string, inputs?: string[]): "missing" | "stale" | "fresh";
