package main

import (
	"flag"
	"fmt"

	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/phone"
)

// localeFlags are the clinic's language, currency and phone region.
type localeFlags struct {
	language    string
	currency    string
	phoneRegion string

	cur i18n.Currency // currency, parsed by check
}

func (f *localeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.language, "default-language", "en", "the clinic's language for people whose browser asks for none we have: en, zh-Hans, vi or fr")
	fs.StringVar(&f.currency, "currency", "EUR", "the clinic's ISO 4217 currency; fees and payment amounts are in its minor units (VND has none)")
	fs.StringVar(&f.phoneRegion, "phone-region", phone.DefaultRegion, "region in which national phone numbers are read: FR, CN, VN…")
}

// check validates the flags, naming the one that is wrong.
func (f *localeFlags) check() error {
	if i18n.Supported(f.language) == "" {
		return fmt.Errorf("--default-language must be one of en, zh-Hans, vi, fr")
	}
	cur, err := i18n.ParseCurrency(f.currency)
	if err != nil {
		return fmt.Errorf("--currency: %w", err)
	}
	f.cur = cur
	if !phone.ValidRegion(f.phoneRegion) {
		return fmt.Errorf("--phone-region must be a region code such as FR, CN or VN")
	}
	return nil
}
