package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/slotd/slotd/payments"
)

// wechatFlags configure --payment-provider wechat. The keys are secrets:
// like every flag they can come from files (SLOTD_WECHAT_API_V3_KEY_FILE,
// SLOTD_WECHAT_PRIVATE_KEY_FILE: the PEM files themselves, mounted as
// secrets).
type wechatFlags struct {
	mchID, appID   string
	apiV3Key       string // a secret
	privateKey     string // PEM, a secret
	certSerial     string
	platformKey    string // PEM: the platform certificate or public key
	publicKeyID    string
	notifyURL, api string

	cfg payments.WeChatConfig // parsed by check
}

func (w *wechatFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.mchID, "wechat-mch-id", "", "wechat: the merchant id (mchid)")
	fs.StringVar(&w.appID, "wechat-app-id", "", "wechat: the app id (appid) the orders are for: the mini-program's, whose users' openids pay JSAPI orders")
	fs.StringVar(&w.apiV3Key, "wechat-api-v3-key", "", "wechat: the 32-character API v3 key that decrypts notifications (a secret: SLOTD_WECHAT_API_V3_KEY_FILE)")
	fs.StringVar(&w.privateKey, "wechat-private-key", "", "wechat: the merchant API certificate's private key, PEM (apiclient_key.pem; a secret: SLOTD_WECHAT_PRIVATE_KEY_FILE)")
	fs.StringVar(&w.certSerial, "wechat-cert-serial", "", "wechat: the serial number of the merchant API certificate")
	fs.StringVar(&w.platformKey, "wechat-platform-key", "", "wechat: WeChat Pay's platform certificate or public key, PEM, that verifies its answers and notifications (SLOTD_WECHAT_PLATFORM_KEY_FILE)")
	fs.StringVar(&w.publicKeyID, "wechat-public-key-id", "", "wechat: the id of WeChat Pay's public key (PUB_KEY_ID_...), when --wechat-platform-key is a public key rather than a certificate")
	fs.StringVar(&w.notifyURL, "wechat-notify-url", "", "wechat: the https URL WeChat Pay notifies (default --public-url + /api/payments/wechat)")
	fs.StringVar(&w.api, "wechat-api-url", "", "wechat: the API's base URL (default https://api.mch.weixin.qq.com; for tests against a fake)")
}

// check parses the keys, naming the flag at fault, for currency (the
// clinic's) and the service's public URL.
func (w *wechatFlags) check(currency, publicURL string) error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"--wechat-mch-id", w.mchID}, {"--wechat-app-id", w.appID}, {"--wechat-api-v3-key", w.apiV3Key},
		{"--wechat-private-key", w.privateKey}, {"--wechat-cert-serial", w.certSerial}, {"--wechat-platform-key", w.platformKey}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--payment-provider wechat needs %s", strings.Join(missing, ", "))
	}
	if !strings.EqualFold(currency, payments.WeChatCurrency) {
		return fmt.Errorf("--payment-provider wechat takes %s only: set --currency %s", payments.WeChatCurrency, payments.WeChatCurrency)
	}
	mk, err := payments.ParseWeChatPrivateKey([]byte(w.privateKey))
	if err != nil {
		return fmt.Errorf("--wechat-private-key: %w", err)
	}
	pk, serial, err := payments.ParseWeChatPlatformKey([]byte(w.platformKey))
	if err != nil {
		return fmt.Errorf("--wechat-platform-key: %w", err)
	}
	if serial == "" {
		serial = w.publicKeyID
	}
	if serial == "" {
		return errors.New("--wechat-platform-key is a public key: give its id, --wechat-public-key-id")
	}
	notify := w.notifyURL
	if notify == "" && publicURL != "" {
		notify = strings.TrimSuffix(publicURL, "/") + "/api/payments/wechat"
	}
	if notify == "" {
		return errors.New("--payment-provider wechat needs --public-url or --wechat-notify-url: WeChat Pay notifies payments there")
	}
	w.cfg = payments.WeChatConfig{MchID: w.mchID, AppID: w.appID, APIv3Key: w.apiV3Key, MerchantKey: mk, MerchantSerial: w.certSerial,
		PlatformKey: pk, PlatformSerial: serial, NotifyURL: notify, APIURL: w.api}
	if _, err := payments.NewWeChat(w.cfg); err != nil {
		return fmt.Errorf("--payment-provider wechat: %w", err)
	}
	return nil
}
