// Builds the web UI into packages/web/dist, which the server serves. Run on its own
// (`node packages/web/build.mjs`) or imported by the repository's build.
import { buildWeb } from './build-web.mjs';

await buildWeb({ minify: process.env.CAIRN_WEB_DEBUG !== '1' });
