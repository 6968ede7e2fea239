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
// loopback, the systemd unit too, the Kubernetes Service has no metrics
// port; Prometheus scrapes the pod itself).
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
	_, port = metricsAddr("kubernetes/deployment.yaml", deployment,
		regexp.MustCompile(`name: SLOTD_METRICS_ADDR\s+value: "?([^"\s]+)"?`))
	service := read("kubernetes/service.yaml")
	if regexp.MustCompile(`(?m)^\s*(- )?(port|targetPort): "?(` + port + `|metrics)"?\s*$`).MatchString(service) {
		t.Errorf("kubernetes/service.yaml publishes the metrics port %s:\n%s", port, service)
	}
}
