package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// TestWeChatFlags: --payment-provider wechat takes its keys as PEM (from
// files, as secrets), reads the platform certificate's serial or needs
// the public key's id, takes CNY only and needs where it is notified.
func TestWeChatFlags(t *testing.T) {
	merchant, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	platform, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(merchant)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(0x5157F09E), Subject: pkix.Name{CommonName: "Tenpay.com Root CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &platform.PublicKey, platform)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert}))
	pub, err := x509.MarshalPKIXPublicKey(&platform.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))

	base := []string{"--payment-provider", "wechat", "--currency", "CNY", "--public-url", "https://clinic.example",
		"--wechat-mch-id", "1900000109", "--wechat-app-id", "wxd678efh567hg6787", "--wechat-api-v3-key", strings.Repeat("k", 32),
		"--wechat-private-key", privPEM, "--wechat-cert-serial", "ABC123"}
	with := func(more ...string) []string { return append(append([]string(nil), base...), more...) }
	for _, c := range []struct {
		name string
		args []string
		err  string
	}{
		{"certificate", with("--wechat-platform-key", certPEM), ""},
		{"public key and its id", with("--wechat-platform-key", pubPEM, "--wechat-public-key-id", "PUB_KEY_ID_01"), ""},
		{"public key without its id", with("--wechat-platform-key", pubPEM), "--wechat-public-key-id"},
		{"not PEM", with("--wechat-platform-key", "nonsense"), "--wechat-platform-key"},
		{"bad private key", append(with("--wechat-platform-key", certPEM), "--wechat-private-key", pubPEM), "--wechat-private-key"},
		{"euros", append(with("--wechat-platform-key", certPEM), "--currency", "EUR"), "--currency CNY"},
		{"short API v3 key", append(with("--wechat-platform-key", certPEM), "--wechat-api-v3-key", "short"), "32 bytes"},
		{"nowhere to notify", append(with("--wechat-platform-key", certPEM), "--public-url", ""), "--wechat-notify-url"},
		{"missing", []string{"--payment-provider", "wechat", "--currency", "CNY"}, "--wechat-mch-id, --wechat-app-id, --wechat-api-v3-key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := parseServe(t, c.args...)
			err := f.checkPayments()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("check = %v, want an error naming %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := f.newPaymentProvider()
			if err != nil || p.Name() != "wechat" {
				t.Fatalf("provider %v, %v", p, err)
			}
			if c.name == "certificate" && f.wechat.cfg.PlatformSerial != "5157F09E" {
				t.Fatalf("serial %q, want the certificate's", f.wechat.cfg.PlatformSerial)
			}
			if f.wechat.cfg.NotifyURL != "https://clinic.example/api/payments/wechat" {
				t.Fatalf("notify URL %q", f.wechat.cfg.NotifyURL)
			}
		})
	}
}
