// The types of checks-plugin.mjs, for the test configuration that provides the same module.
import type { Plugin } from 'esbuild';

/** The source of `virtual:cairn-checks`. */
export function checksModule(): Promise<string>;
export const checksPlugin: Plugin;
