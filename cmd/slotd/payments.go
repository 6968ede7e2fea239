package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/slotd/slotd/payments"
)

// The --payment-provider values.
const (
	providerSigned    = "signed"
	providerStripe    = "stripe"
	providerSimulated = "simulated"
	providerWeChat    = "wechat"
)

// registerPayments adds the payment provider's flags. The Stripe keys are
// secrets: like every flag they can come from SLOTD_STRIPE_SECRET_KEY_FILE
// and SLOTD_STRIPE_WEBHOOK_SECRET_FILE (files mounted as secrets).
func (f *serveFlags) registerPayments(fs *flag.FlagSet) {
	fs.StringVar(&f.paymentProvider, "payment-provider", "", "who takes the fees of held appointments: signed (the clinic's gateway: --payment-secret, --payment-refund-url), stripe (Stripe Checkout: --stripe-secret-key, --stripe-webhook-secret), wechat (WeChat Pay API v3: --wechat-*) or simulated (the demo's pay page; only with --demo); default simulated with --demo (without --payment-refund-url), signed otherwise")
	fs.StringVar(&f.stripeSecretKey, "stripe-secret-key", "", "stripe: the API secret key (sk_...); use SLOTD_STRIPE_SECRET_KEY_FILE")
	fs.StringVar(&f.stripeWebhookSecret, "stripe-webhook-secret", "", "stripe: the signing secret (whsec_...) of the webhook endpoint /api/payments/stripe; use SLOTD_STRIPE_WEBHOOK_SECRET_FILE")
	fs.StringVar(&f.stripeAPIURL, "stripe-api-url", "", "stripe: the API's base URL (default https://api.stripe.com; for tests against a fake)")
	f.wechat.register(fs)
}

// checkPayments refuses a provider that cannot work, naming its flag,
// and settles the default.
func (f *serveFlags) checkPayments() error {
	if f.paymentProvider == "" {
		f.paymentProvider = providerSigned
		if f.demo && f.refundURL == "" {
			f.paymentProvider = providerSimulated
		}
	}
	switch f.paymentProvider {
	case providerSigned:
	case providerSimulated:
		if !f.demo {
			return errors.New("--payment-provider simulated takes no money: it is the demo's (--demo)")
		}
	case providerStripe:
		if f.stripeSecretKey == "" || f.stripeWebhookSecret == "" {
			return errors.New("--payment-provider stripe needs --stripe-secret-key and --stripe-webhook-secret (SLOTD_STRIPE_SECRET_KEY_FILE, SLOTD_STRIPE_WEBHOOK_SECRET_FILE)")
		}
	case providerWeChat:
		return f.wechat.check(f.locale.currency, f.interop.publicURL)
	default:
		return fmt.Errorf("--payment-provider must be %s, %s, %s or %s", providerSigned, providerStripe, providerWeChat, providerSimulated)
	}
	return nil
}

// newPaymentProvider is the provider checkPayments settled. The signed
// gateway without --payment-refund-url refuses every refund, so refunds
// fail visibly for staff instead of being dropped.
func (f *serveFlags) newPaymentProvider() (payments.Provider, error) {
	switch f.paymentProvider {
	case providerStripe:
		return payments.NewStripe(payments.StripeConfig{SecretKey: f.stripeSecretKey, WebhookSecret: f.stripeWebhookSecret, APIURL: f.stripeAPIURL})
	case providerWeChat:
		return payments.NewWeChat(f.wechat.cfg)
	case providerSimulated:
		return payments.Simulated{Secret: []byte(f.paymentSecret)}, nil
	}
	return &payments.Signed{URL: f.refundURL, Secret: []byte(f.paymentSecret)}, nil
}
