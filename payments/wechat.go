package payments

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WeChat takes payments with WeChat Pay API v3 (direct merchant): a
// Native order whose code_url the web page shows as a QR code, or, when
// the checkout names the payer's openid, a JSAPI order whose parameters
// the mini-program hands to wx.requestPayment. Payments are confirmed by
// the TRANSACTION.SUCCESS notification and paid back with the domestic
// refund API. Requests are signed with the merchant's private key,
// answers and notifications verified with WeChat Pay's platform key
// (WECHATPAY2-SHA256-RSA2048), notification resources decrypted with the
// API v3 key (AEAD_AES_256_GCM). Payments are identified by WeChat's
// transaction_id (slotd's trade number).
type WeChat struct {
	c      WeChatConfig
	client *http.Client
	nonces *nonceLog
}

// WeChatConfig configures NewWeChat.
type WeChatConfig struct {
	// MchID is the merchant id, AppID the app (mini-program or official
	// account) the orders are for.
	MchID, AppID string
	// APIv3Key is the 32-byte key notification resources are encrypted
	// with.
	APIv3Key string
	// MerchantKey signs the requests; MerchantSerial is the serial number
	// of its certificate (serial_no of the Authorization header).
	MerchantKey    *rsa.PrivateKey
	MerchantSerial string
	// PlatformKey verifies answers and notifications signed by WeChat Pay;
	// PlatformSerial is the serial of the platform certificate, or the
	// public key's id (PUB_KEY_ID_...), that Wechatpay-Serial names.
	PlatformKey    *rsa.PublicKey
	PlatformSerial string
	// NotifyURL is where WeChat Pay notifies payments and refunds: the
	// https URL of /api/payments/wechat.
	NotifyURL string
	// APIURL, when set, replaces https://api.mch.weixin.qq.com (a test's
	// fake).
	APIURL     string
	HTTPClient *http.Client
}

// WeChatName names the WeChat Pay provider, whose notifications are
// POSTed to /api/payments/wechat.
const WeChatName = "wechat"

// WeChatCurrency is the only currency WeChat Pay's domestic API takes.
const WeChatCurrency = "CNY"

// weChatAPI is WeChat Pay's API host.
const weChatAPI = "https://api.mch.weixin.qq.com"

// NewWeChat is the WeChat Pay provider of c.
func NewWeChat(c WeChatConfig) (*WeChat, error) {
	switch {
	case c.MchID == "" || c.AppID == "":
		return nil, errors.New("payments: wechat needs the merchant id and the app id")
	case len(c.APIv3Key) != 32:
		return nil, errors.New("payments: wechat's API v3 key must be 32 bytes")
	case c.MerchantKey == nil || c.MerchantSerial == "":
		return nil, errors.New("payments: wechat needs the merchant's private key and its certificate's serial number")
	case c.PlatformKey == nil || c.PlatformSerial == "":
		return nil, errors.New("payments: wechat needs WeChat Pay's platform certificate or public key, and its serial or id")
	case !strings.HasPrefix(c.NotifyURL, "https://") && !strings.HasPrefix(c.NotifyURL, "http://"):
		return nil, errors.New("payments: wechat needs the URL it notifies (https://.../api/payments/wechat)")
	}
	if c.APIURL == "" {
		c.APIURL = weChatAPI
	}
	c.APIURL = strings.TrimSuffix(c.APIURL, "/")
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 20 * time.Second}
	}
	return &WeChat{c: c, client: hc, nonces: newNonceLog(WeChatMaxSkew)}, nil
}

// Name is WeChatName.
func (*WeChat) Name() string { return WeChatName }

// weChatZone is China Standard Time, the zone WeChat Pay writes times in.
var weChatZone = time.FixedZone("CST", 8*3600)

// weChatAmount is an order's or a refund's amount: minor units (fen).
type weChatAmount struct {
	Total    int64  `json:"total"`
	Currency string `json:"currency,omitempty"`
}

// WeChatTradeNo is slotd's out_trade_no for req (6 to 32 letters, digits
// and "-"): the appointment's id and a digest of what is asked (amount,
// expiry, description, and the JSAPI payer), so the same checkout again is
// the same order, and one asking otherwise another order, never WeChat's
// refusal of a repeated number with other parameters.
func WeChatTradeNo(req CheckoutRequest) string {
	k := CheckoutIdempotencyKey(CheckoutRequest{AppointmentID: req.AppointmentID, Amount: req.Amount, Currency: req.Currency,
		Description: req.Description, ReturnURL: "wechat:" + req.PayerID}, req.ExpiresAt)
	return fmt.Sprintf("A%d-%s", req.AppointmentID, k[len(k)-8:])
}

// appointmentOfTradeNo reads the appointment id out of an out_trade_no
// WeChatTradeNo made.
func appointmentOfTradeNo(no string) (int64, bool) {
	rest, ok := strings.CutPrefix(no, "A")
	if !ok {
		return 0, false
	}
	id, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0
}

// Checkout places the order of req: JSAPI for the mini-program when
// req.PayerID (the payer's openid under AppID) is set, Native otherwise.
// A Native checkout answers Params{"codeUrl"}, to show as a QR code; a
// JSAPI one the signed parameters of wx.requestPayment (appId,
// timeStamp, nonceStr, package, signType, paySign).
func (p *WeChat) Checkout(ctx context.Context, req CheckoutRequest) (Checkout, error) {
	if req.Amount <= 0 || req.Currency != WeChatCurrency {
		return Checkout{}, fmt.Errorf("payments: wechat checkout of appointment %d: %d %s (WeChat Pay takes CNY)", req.AppointmentID, req.Amount, req.Currency)
	}
	order := map[string]any{
		"appid": p.c.AppID, "mchid": p.c.MchID, "description": req.Description,
		"out_trade_no": WeChatTradeNo(req), "time_expire": req.ExpiresAt.In(weChatZone).Format(time.RFC3339),
		"notify_url": p.c.NotifyURL, "attach": strconv.FormatInt(req.AppointmentID, 10),
		"amount": weChatAmount{Total: req.Amount, Currency: WeChatCurrency},
	}
	if req.PayerID == "" {
		var out struct {
			CodeURL string `json:"code_url"`
		}
		if err := p.call(ctx, http.MethodPost, "/v3/pay/transactions/native", order, &out); err != nil {
			return Checkout{}, fmt.Errorf("payments: wechat native order of appointment %d: %w", req.AppointmentID, err)
		}
		if !strings.HasPrefix(out.CodeURL, "weixin://") {
			return Checkout{}, fmt.Errorf("payments: wechat native order of appointment %d: no code_url", req.AppointmentID)
		}
		return Checkout{Params: map[string]string{"codeUrl": out.CodeURL}, ExpiresAt: req.ExpiresAt}, nil
	}
	order["payer"] = map[string]string{"openid": req.PayerID}
	var out struct {
		PrepayID string `json:"prepay_id"`
	}
	if err := p.call(ctx, http.MethodPost, "/v3/pay/transactions/jsapi", order, &out); err != nil {
		return Checkout{}, fmt.Errorf("payments: wechat jsapi order of appointment %d: %w", req.AppointmentID, err)
	}
	if out.PrepayID == "" {
		return Checkout{}, fmt.Errorf("payments: wechat jsapi order of appointment %d: no prepay_id", req.AppointmentID)
	}
	params, err := p.jsapiParams(out.PrepayID)
	if err != nil {
		return Checkout{}, err
	}
	return Checkout{Params: params, ExpiresAt: req.ExpiresAt}, nil
}

// jsapiParams are wx.requestPayment's parameters for prepayID, signed
// with the merchant's key over appId, timeStamp, nonceStr and package.
func (p *WeChat) jsapiParams(prepayID string) (map[string]string, error) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce, err := newNonce()
	if err != nil {
		return nil, err
	}
	pkg := "prepay_id=" + prepayID
	sig, err := signSHA256RSA(p.c.MerchantKey, weChatMessage(p.c.AppID, ts, nonce, pkg))
	if err != nil {
		return nil, err
	}
	return map[string]string{"appId": p.c.AppID, "timeStamp": ts, "nonceStr": nonce, "package": pkg, "signType": "RSA", "paySign": sig}, nil
}

// Refund asks for req with out_refund_no req.IdempotencyKey(): WeChat Pay
// answers a repeat with the same refund. The refund names the order's
// total, so the order is read first. A refund WeChat answers CLOSED or
// ABNORMAL is an error (retried, then staff's); PROCESSING is taken, its
// outcome notified later.
func (p *WeChat) Refund(ctx context.Context, req RefundRequest) (string, error) {
	if req.RefundID <= 0 || req.Amount <= 0 || req.TradeNo == "" {
		return "", fmt.Errorf("payments: refund %d of %d: nothing to refund", req.RefundID, req.Amount)
	}
	var order struct {
		Amount weChatAmount `json:"amount"`
	}
	if err := p.call(ctx, http.MethodGet, "/v3/pay/transactions/id/"+pathEscape(req.TradeNo)+"?mchid="+pathEscape(p.c.MchID), nil, &order); err != nil {
		return "", fmt.Errorf("payments: wechat refund %d: reading the order: %w", req.RefundID, err)
	}
	if order.Amount.Total < req.Amount {
		return "", fmt.Errorf("payments: wechat refund %d of %d: the order is of %d", req.RefundID, req.Amount, order.Amount.Total)
	}
	body := map[string]any{
		"transaction_id": req.TradeNo, "out_refund_no": req.IdempotencyKey(), "notify_url": p.c.NotifyURL,
		"amount": map[string]any{"refund": req.Amount, "total": order.Amount.Total, "currency": WeChatCurrency},
	}
	var out struct {
		RefundID string `json:"refund_id"`
		Status   string `json:"status"`
	}
	if err := p.call(ctx, http.MethodPost, "/v3/refund/domestic/refunds", body, &out); err != nil {
		return "", fmt.Errorf("payments: wechat refund %d: %w", req.RefundID, err)
	}
	switch out.Status {
	case "SUCCESS", "PROCESSING":
		if out.RefundID == "" {
			return "", fmt.Errorf("payments: wechat refund %d: no refund_id", req.RefundID)
		}
		return out.RefundID, nil
	}
	return "", fmt.Errorf("payments: wechat refund %d is %s", req.RefundID, out.Status)
}

// refundIDOf reads slotd's refund id out of an out_refund_no
// (RefundRequest.IdempotencyKey).
func refundIDOf(outRefundNo string) (int64, bool) {
	rest, ok := strings.CutPrefix(outRefundNo, "slotd-refund-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil && n > 0
}
