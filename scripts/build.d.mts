// Types of build.mjs, for the tests that build into a folder of their own.
export declare function build(options: { outDir: string; clientOnly?: boolean }): Promise<void>;
