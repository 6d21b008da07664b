// Types of chromium.mjs, for the TypeScript tests.
export const CHROMIUM_PATH: string;
export const CHROMIUM_ARGS: string[];
