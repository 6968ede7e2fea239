// Validates Kubernetes manifests against the API's schemas, offline: each
// document of each file given is checked by the kubernetes-models class
// of its apiVersion and kind. Exit 1 on the first invalid file.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const kinds = {
  "apps/v1/Deployment": "kubernetes-models/apps/v1/Deployment",
  "v1/Service": "kubernetes-models/v1/Service",
  "v1/Secret": "kubernetes-models/v1/Secret",
  "policy/v1/PodDisruptionBudget": "kubernetes-models/policy/v1/PodDisruptionBudget",
  "networking.k8s.io/v1/NetworkPolicy": "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
};
let failed = false;
for (const file of process.argv.slice(2)) {
  for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
    if (doc.errors.length) { console.error(`${file}: ${doc.errors[0].message}`); failed = true; continue; }
    const obj = doc.toJS();
    if (!obj) continue;
    const key = `${obj.apiVersion}/${obj.kind}`;
    const mod = kinds[key];
    if (!mod) { console.error(`${file}: no schema known for ${key}`); failed = true; continue; }
    const name = obj.kind;
    const Model = (await import(mod))[name];
    try {
      new Model(obj).validate();
      console.log(`${file}: ${key} ${obj.metadata?.name} valid`);
    } catch (e) {
      console.error(`${file}: ${key}: ${e.message}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);
