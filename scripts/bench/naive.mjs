// The naive baseline: read every file under the given folders and JSON.parse every line
// (a .json file as one document). Prints how many records parsed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let records = 0;
let failed = 0;
for (const dir of process.argv.slice(2)) {
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const text = readFileSync(join(e.parentPath ?? e.path, e.name), 'utf8');
    const lines = e.name.endsWith('.json') ? [text] : text.split('\n');
    for (const line of lines) {
      if (line.length === 0) continue;
      try {
        JSON.parse(line);
        records++;
      } catch {
        failed++;
      }
    }
  }
}
console.log(JSON.stringify({ records, failed }));
