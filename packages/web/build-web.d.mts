// Types of build-web.mjs, for the tests that build the UI into a folder of their own.
export function buildWeb(options?: { outDir?: string; minify?: boolean }): Promise<string>;
