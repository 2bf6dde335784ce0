// ncc writes ES module bundles; this marks dist/ (and dist/cli/) as ESM so `node dist/index.js` loads
// them as modules, as the action runner does.
import { writeFileSync } from 'node:fs'

for (const folder of ['dist', 'dist/cli']) {
  writeFileSync(new URL(`../${folder}/package.json`, import.meta.url), '{ "type": "module" }\n')
}
