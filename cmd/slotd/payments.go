package main

import "github.com/slotd/slotd/payments"

// paymentProvider is the provider refunds are asked of: the signed gateway
// at --payment-refund-url, or in the demo without one the simulated
// provider of its pay page. Without either the signed provider refuses
// every refund (no URL), so refunds fail visibly for staff instead of
// being dropped.
func (f *serveFlags) paymentProvider() payments.Provider {
	if f.demo && f.refundURL == "" {
		return payments.Simulated{}
	}
	return &payments.Signed{URL: f.refundURL, Secret: []byte(f.paymentSecret)}
}
