package main

import (
	"crypto/tls"
	"fmt"
	"sync/atomic"
)

// certReloader serves the certificate last loaded from its files; reload
// (on SIGHUP) swaps in a renewed one without dropping a connection. A
// failed reload keeps the old certificate.
type certReloader struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
}

func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	c := &certReloader{certFile: certFile, keyFile: keyFile}
	return c, c.reload()
}

func (c *certReloader) reload() error {
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	c.cert.Store(&cert)
	return nil
}

func (c *certReloader) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.cert.Load(), nil
		},
	}
}
