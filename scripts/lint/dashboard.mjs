// Writes every PromQL query of a Grafana dashboard as a recording rule, so
// that `promtool check rules` parses them all (Grafana's variables replaced
// by plain values).
import { readFileSync } from "node:fs";

const d = JSON.parse(readFileSync(process.argv[2], "utf8"));
const rules = [];
for (const p of d.panels) {
  for (const t of p.targets ?? []) {
    const expr = t.expr.replaceAll("$__rate_interval", "5m").replaceAll("$instance", ".*");
    rules.push(`      - record: dashboard:panel_${p.id}_${t.refId}\n        expr: ${JSON.stringify(expr)}`);
  }
}
if (rules.length === 0) { console.error("no queries in the dashboard"); process.exit(1); }
console.log(`groups:\n  - name: dashboard\n    rules:\n${rules.join("\n")}`);
