package main

import (
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDeployKeepsMetricsPrivate checks the shipped deploy files: /metrics
// and /debug/pprof listen on their own address, never published beside the
// public one (the image exposes only the public port and binds metrics to
// loopback, the systemd unit too, and so does the Kubernetes pod, which
// declares no metrics port, asks no scrape of it, probes only the public
// port, and whose NetworkPolicy admits the public port alone).
func TestDeployKeepsMetricsPrivate(t *testing.T) {
	read := func(f string) string {
		t.Helper()
		b, err := os.ReadFile("../../deploy/" + f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	metricsAddr := func(f, text string, re *regexp.Regexp) (host, port string) {
		t.Helper()
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s sets no SLOTD_METRICS_ADDR: /metrics would be on the public listener", f)
		}
		host, port, err := net.SplitHostPort(m[1])
		if err != nil {
			t.Fatalf("%s: SLOTD_METRICS_ADDR %q: %v", f, m[1], err)
		}
		return host, port
	}
	loopback := func(host string) bool { ip := net.ParseIP(host); return ip != nil && ip.IsLoopback() }

	docker := read("Dockerfile")
	host, port := metricsAddr("Dockerfile", docker, regexp.MustCompile(`SLOTD_METRICS_ADDR=(\S+)`))
	if !loopback(host) {
		t.Errorf("Dockerfile: SLOTD_METRICS_ADDR host %q is not loopback", host)
	}
	for _, m := range regexp.MustCompile(`(?m)^EXPOSE\s+(.*)$`).FindAllStringSubmatch(docker, -1) {
		for _, p := range strings.Fields(m[1]) {
			if strings.TrimSuffix(p, "/tcp") == port {
				t.Errorf("Dockerfile exposes the metrics port %s", port)
			}
		}
	}

	unit := read("systemd/slotd.service")
	host, _ = metricsAddr("systemd/slotd.service", unit, regexp.MustCompile(`(?m)^Environment=SLOTD_METRICS_ADDR=(\S+)$`))
	if !loopback(host) {
		t.Errorf("systemd unit: SLOTD_METRICS_ADDR host %q is not loopback", host)
	}

	deployment := read("kubernetes/deployment.yaml")
	host, port = metricsAddr("kubernetes/deployment.yaml", deployment,
		regexp.MustCompile(`name: SLOTD_METRICS_ADDR\s+value: "?([^"\s]+)"?`))
	if !loopback(host) {
		// ":9090" listens on the pod's address: anyone on the pod network
		// could read /metrics and /debug/pprof.
		t.Errorf("kubernetes/deployment.yaml: SLOTD_METRICS_ADDR host %q is not loopback", host)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:- )?containerPort: "?(\d+)"?\s*$`).FindAllStringSubmatch(deployment, -1) {
		if m[1] == port {
			t.Errorf("kubernetes/deployment.yaml declares the metrics port %s as a containerPort", port)
		}
	}
	if m := regexp.MustCompile(`(?m)^\s*prometheus\.io/(scrape|port):.*$`).FindString(deployment); m != "" {
		t.Errorf("kubernetes/deployment.yaml asks Prometheus to scrape the pod from outside: %s", strings.TrimSpace(m))
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*port: "?(\S+?)"?\s*$`).FindAllStringSubmatch(deployment, -1) {
		if m[1] != "http" && m[1] != "8080" {
			t.Errorf("kubernetes/deployment.yaml: a probe uses port %s, not the public one", m[1])
		}
	}
	policy := read("kubernetes/networkpolicy.yaml")
	if !strings.Contains(policy, "kind: NetworkPolicy") || !strings.Contains(policy, "- Ingress") && !strings.Contains(policy, `["Ingress"]`) {
		t.Errorf("kubernetes/networkpolicy.yaml is no ingress NetworkPolicy:\n%s", policy)
	}
	var admitted []string
	for _, m := range regexp.MustCompile(`(?m)^[^#\n]*port: "?(\S+?)"?\s*$`).FindAllStringSubmatch(policy, -1) {
		admitted = append(admitted, m[1])
	}
	if len(admitted) != 1 || admitted[0] != "8080" {
		t.Errorf("kubernetes/networkpolicy.yaml admits ports %v, want only the public 8080", admitted)
	}
	service := read("kubernetes/service.yaml")
	if regexp.MustCompile(`(?m)^\s*(- )?(port|targetPort): "?(` + port + `|metrics)"?\s*$`).MatchString(service) {
		t.Errorf("kubernetes/service.yaml publishes the metrics port %s:\n%s", port, service)
	}
}
