// Package wechatfake is a local fake of WeChat Pay API v3 for tests: it
// checks the merchant's WECHATPAY2-SHA256-RSA2048 signature on every
// request, answers Native and JSAPI orders, order queries and refunds as
// WeChat Pay documents them, signs its answers with a platform key made
// for the test, and makes notifications as WeChat Pay sends them (signed,
// their resource encrypted with AEAD_AES_256_GCM under the API v3 key).
package wechatfake

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/payments"
)

// The fake merchant's ids, key serials and API v3 key.
const (
	MchID          = "1900000109"
	AppID          = "wxd678efh567hg6787"
	APIv3Key       = "0123456789abcdef0123456789abcdef"
	MerchantSerial = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1"
	PlatformSerial = "PUB_KEY_ID_0114232134912410000000000000"
)

var (
	keysOnce              sync.Once
	merchantKey, platform *rsa.PrivateKey
)

// keys makes the merchant's and the platform's RSA keys, once per test
// binary (2048-bit keys take a while to make).
func keys() (*rsa.PrivateKey, *rsa.PrivateKey) {
	keysOnce.Do(func() {
		var err error
		if merchantKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if platform, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return merchantKey, platform
}

// Order is an order the fake took.
type Order struct {
	OutTradeNo    string
	TransactionID string
	Total         int64
	Currency      string
	Payer         string // the JSAPI payer's openid
	Paid          bool
	PaidAt        time.Time
	body          string
	answer        string
}

// Refund is a refund the fake made.
type Refund struct {
	OutRefundNo   string
	RefundID      string
	TransactionID string
	Amount, Total int64
	At            time.Time
}

// Fake answers at the config's APIURL.
type Fake struct {
	URL string
	t   *testing.T
	mu  sync.Mutex
	// fail5xx is how many refunds are answered 500 before one succeeds.
	fail5xx int
	orders  map[string]*Order  // out_trade_no →
	byTxn   map[string]*Order  // transaction_id →
	refunds map[string]*Refund // out_refund_no →
	paths   []string
	seq     int
	extra   []Order // trades on the bill that slotd never ordered
	clock   func() time.Time
}

// New starts a fake, closed with the test.
func New(t *testing.T) *Fake {
	keys()
	f := &Fake{t: t, orders: map[string]*Order{}, byTxn: map[string]*Order{}, refunds: map[string]*Refund{}, clock: time.Now}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Config is the provider's configuration for the fake.
func (f *Fake) Config() payments.WeChatConfig {
	m, p := keys()
	return payments.WeChatConfig{MchID: MchID, AppID: AppID, APIv3Key: APIv3Key, MerchantKey: m, MerchantSerial: MerchantSerial,
		PlatformKey: &p.PublicKey, PlatformSerial: PlatformSerial, NotifyURL: "https://clinic.example/api/payments/wechat",
		APIURL: f.URL}
}

var authRE = regexp.MustCompile(`^WECHATPAY2-SHA256-RSA2048 mchid="([^"]+)",nonce_str="([^"]+)",signature="([^"]+)",timestamp="([^"]+)",serial_no="([^"]+)"$`)

// fail answers WeChat Pay's error object.
func (f *Fake) fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"code":%q,"message":%q}`, code, msg)
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	m := authRE.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil || m[1] != MchID || m[5] != MerchantSerial {
		f.fail(w, http.StatusUnauthorized, "SIGN_ERROR", "no or malformed Authorization")
		return
	}
	sig, _ := base64.StdEncoding.DecodeString(m[3])
	d := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\n%s\n%s\n", r.Method, r.URL.RequestURI(), m[4], m[2], body))
	mk, _ := keys()
	if rsa.VerifyPKCS1v15(&mk.PublicKey, crypto.SHA256, d[:], sig) != nil {
		f.fail(w, http.StatusUnauthorized, "SIGN_ERROR", "the signature does not verify")
		return
	}
	var ans string
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v3/bill/tradebill":
		day := r.URL.Query().Get("bill_date")
		if _, err := time.Parse(time.DateOnly, day); err != nil || r.URL.Query().Get("bill_type") != "ALL" {
			f.fail(w, http.StatusBadRequest, "PARAM_ERROR", "bill_date")
			return
		}
		if !strings.Contains(string(f.bill(day)), "\r\n`") {
			f.fail(w, http.StatusBadRequest, "NO_STATEMENT_EXIST", "the bill does not exist")
			return
		}
		sum := sha1.Sum(f.bill(day))
		ans = fmt.Sprintf(`{"hash_type":"SHA1","hash_value":%q,"download_url":%q}`, hex.EncodeToString(sum[:]), f.URL+"/v3/billdownload/file?token="+day)
	case r.Method == http.MethodGet && r.URL.Path == "/v3/billdownload/file":
		// The file itself is not signed: its digest is in the signed answer above.
		w.Write(f.bill(r.URL.Query().Get("token")))
		return
	case r.Method == http.MethodPost && (r.URL.Path == "/v3/pay/transactions/native" || r.URL.Path == "/v3/pay/transactions/jsapi"):
		var in struct {
			AppID      string `json:"appid"`
			MchID      string `json:"mchid"`
			OutTradeNo string `json:"out_trade_no"`
			TimeExpire string `json:"time_expire"`
			NotifyURL  string `json:"notify_url"`
			Amount     struct {
				Total    int64  `json:"total"`
				Currency string `json:"currency"`
			} `json:"amount"`
			Payer struct {
				OpenID string `json:"openid"`
			} `json:"payer"`
		}
		if err := json.Unmarshal(body, &in); err != nil || in.AppID != AppID || in.MchID != MchID || len(in.OutTradeNo) < 6 || len(in.OutTradeNo) > 32 || in.NotifyURL == "" {
			f.fail(w, http.StatusBadRequest, "PARAM_ERROR", "bad order")
			return
		}
		if _, err := time.Parse(time.RFC3339, in.TimeExpire); err != nil {
			f.fail(w, http.StatusBadRequest, "PARAM_ERROR", "time_expire")
			return
		}
		if o, ok := f.orders[in.OutTradeNo]; ok {
			if o.body != string(body) {
				f.fail(w, http.StatusBadRequest, "INVALID_REQUEST", "the out_trade_no is in use with other parameters")
				return
			}
			ans = o.answer
			break
		}
		f.seq++
		o := &Order{OutTradeNo: in.OutTradeNo, TransactionID: fmt.Sprintf("42000000%08d", f.seq), Total: in.Amount.Total,
			Currency: in.Amount.Currency, Payer: in.Payer.OpenID, body: string(body)}
		if strings.HasSuffix(r.URL.Path, "native") {
			o.answer = fmt.Sprintf(`{"code_url":"weixin://wxpay/bizpayurl?pr=fake%d"}`, f.seq)
		} else if in.Payer.OpenID == "" {
			f.fail(w, http.StatusBadRequest, "PARAM_ERROR", "payer.openid")
			return
		} else {
			o.answer = fmt.Sprintf(`{"prepay_id":"wx%d"}`, f.seq)
		}
		f.orders[o.OutTradeNo], f.byTxn[o.TransactionID] = o, o
		ans = o.answer
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v3/pay/transactions/id/"):
		o, ok := f.byTxn[strings.TrimPrefix(r.URL.Path, "/v3/pay/transactions/id/")]
		if !ok || r.URL.Query().Get("mchid") != MchID {
			f.fail(w, http.StatusNotFound, "ORDER_NOT_EXIST", "no such order")
			return
		}
		ans = fmt.Sprintf(`{"appid":%q,"mchid":%q,"out_trade_no":%q,"transaction_id":%q,"trade_state":%q,"amount":{"total":%d,"currency":%q}}`,
			AppID, MchID, o.OutTradeNo, o.TransactionID, map[bool]string{true: "SUCCESS", false: "NOTPAY"}[o.Paid], o.Total, o.Currency)
	case r.Method == http.MethodPost && r.URL.Path == "/v3/refund/domestic/refunds":
		var in struct {
			TransactionID string `json:"transaction_id"`
			OutRefundNo   string `json:"out_refund_no"`
			Amount        struct {
				Refund int64 `json:"refund"`
				Total  int64 `json:"total"`
			} `json:"amount"`
		}
		if err := json.Unmarshal(body, &in); err != nil || in.OutRefundNo == "" {
			f.fail(w, http.StatusBadRequest, "PARAM_ERROR", "bad refund")
			return
		}
		if f.fail5xx > 0 {
			f.fail5xx--
			f.fail(w, http.StatusInternalServerError, "SYSTEM_ERROR", "try again")
			return
		}
		if rf, ok := f.refunds[in.OutRefundNo]; ok {
			ans = refundAnswer(rf)
			break
		}
		o, ok := f.byTxn[in.TransactionID]
		if !ok || !o.Paid || in.Amount.Total != o.Total || in.Amount.Refund <= 0 || in.Amount.Refund > f.refundable(o) {
			f.fail(w, http.StatusBadRequest, "INVALID_REQUEST", "the refund does not fit the order")
			return
		}
		f.seq++
		rf := &Refund{OutRefundNo: in.OutRefundNo, RefundID: fmt.Sprintf("50300000%08d", f.seq), TransactionID: o.TransactionID,
			Amount: in.Amount.Refund, Total: o.Total, At: f.clock()}
		f.refunds[rf.OutRefundNo] = rf
		ans = refundAnswer(rf)
	default:
		f.fail(w, http.StatusNotFound, "NOT_FOUND", "no such API")
		return
	}
	for k, v := range Sign([]byte(ans), time.Now()) {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, ans)
}

func refundAnswer(rf *Refund) string {
	return fmt.Sprintf(`{"refund_id":%q,"out_refund_no":%q,"transaction_id":%q,"status":"SUCCESS","amount":{"refund":%d,"total":%d,"currency":"CNY"}}`,
		rf.RefundID, rf.OutRefundNo, rf.TransactionID, rf.Amount, rf.Total)
}

// refundable is what is left to refund of o.
func (f *Fake) refundable(o *Order) int64 {
	left := o.Total
	for _, r := range f.refunds {
		if r.TransactionID == o.TransactionID {
			left -= r.Amount
		}
	}
	return left
}

// cst is China Standard Time, the zone of WeChat Pay's bills.
var cst = time.FixedZone("CST", 8*3600)

// bill is the trade bill (bill_type ALL) of the China day day, as WeChat
// Pay writes it: a header, one row per trade with every field prefixed
// by "`", then the summary. f.mu is held.
func (f *Fake) bill(day string) []byte {
	var b strings.Builder
	b.WriteString("交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注\r\n")
	yuan := func(fen int64) string { return fmt.Sprintf("%d.%02d", fen/100, fen%100) }
	row := func(at time.Time, o Order, state, refundID, outRefund string, refund int64) {
		fields := []string{at.In(cst).Format(time.DateTime), AppID, MchID, "0", "", o.TransactionID, o.OutTradeNo, "oUser", "NATIVE", state,
			"OTHERS", "CNY", yuan(o.Total), "0.00", refundID, outRefund, yuan(refund), "0.00", "ORIGINAL", map[bool]string{true: "SUCCESS"}[refund > 0],
			"Appointment", "", "0.00", "0.60%", yuan(o.Total), yuan(refund), ""}
		for i := range fields {
			fields[i] = "`" + fields[i]
		}
		b.WriteString(strings.Join(fields, ",") + "\r\n")
	}
	n := 0
	// In a stable order: the bill's digest is asked before its download.
	orders := append(f.paidOrders(), f.extra...)
	sort.Slice(orders, func(i, j int) bool { return orders[i].TransactionID < orders[j].TransactionID })
	refunds := make([]*Refund, 0, len(f.refunds))
	for _, r := range f.refunds {
		refunds = append(refunds, r)
	}
	sort.Slice(refunds, func(i, j int) bool { return refunds[i].RefundID < refunds[j].RefundID })
	for _, o := range orders {
		if o.PaidAt.In(cst).Format(time.DateOnly) == day {
			row(o.PaidAt, o, "SUCCESS", "", "", 0)
			n++
		}
	}
	for _, r := range refunds {
		if r.At.In(cst).Format(time.DateOnly) == day {
			o := *f.byTxn[r.TransactionID]
			row(r.At, o, "REFUND", r.RefundID, r.OutRefundNo, r.Amount)
			n++
		}
	}
	fmt.Fprintf(&b, "总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额\r\n`%d,`0.00,`0.00,`0.00,`0.00,`0.00,`0.00\r\n", n)
	return []byte(b.String())
}

// paidOrders are the orders paid. f.mu is held.
func (f *Fake) paidOrders() []Order {
	var out []Order
	for _, o := range f.orders {
		if o.Paid {
			out = append(out, *o)
		}
	}
	return out
}

// AddTrade puts on the bill a payment of total that slotd never ordered,
// paid at at.
func (f *Fake) AddTrade(transactionID string, total int64, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.extra = append(f.extra, Order{OutTradeNo: "OTHER-" + transactionID, TransactionID: transactionID, Total: total, Currency: "CNY", Paid: true, PaidAt: at})
}

// SetClock sets the clock of the refunds' times on the bill (the wall
// clock by default), for a test whose service runs on its own.
func (f *Fake) SetClock(now func() time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clock = now
}

// SetFail5xx makes the next n refunds answer 500.
func (f *Fake) SetFail5xx(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail5xx = n
}

// Paths lists the requests taken so far ("METHOD /path").
func (f *Fake) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

// Refunds lists the refunds made.
func (f *Fake) Refunds() []Refund {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Refund
	for _, r := range f.refunds {
		out = append(out, *r)
	}
	return out
}

// Order is the order of out_trade_no, as the fake holds it.
func (f *Fake) Order(outTradeNo string) (Order, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[outTradeNo]
	if !ok {
		return Order{}, false
	}
	return *o, true
}

// OnlyOrder is the one order taken (the test fails otherwise).
func (f *Fake) OnlyOrder() Order {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.orders) != 1 {
		f.t.Fatalf("wechatfake: %d orders, want 1", len(f.orders))
	}
	for _, o := range f.orders {
		return *o
	}
	return Order{}
}

// Pay pays the order out_trade_no and answers its TRANSACTION.SUCCESS
// notification, signed at at.
func (f *Fake) Pay(outTradeNo string, at time.Time) (http.Header, []byte) {
	f.mu.Lock()
	o, ok := f.orders[outTradeNo]
	var paid Order
	if ok {
		if !o.Paid {
			o.Paid, o.PaidAt = true, at
		}
		paid = *o
	}
	f.mu.Unlock()
	if !ok {
		f.t.Fatalf("wechatfake: no order %s", outTradeNo)
	}
	return Notice("TRANSACTION.SUCCESS", Transaction(paid, paid.Total), at)
}

// Transaction is the TRANSACTION.SUCCESS resource of o, paid total.
func Transaction(o Order, total int64) map[string]any {
	return map[string]any{"appid": AppID, "mchid": MchID, "out_trade_no": o.OutTradeNo, "transaction_id": o.TransactionID,
		"trade_type": "NATIVE", "trade_state": "SUCCESS", "trade_state_desc": "支付成功", "success_time": "2026-12-05T10:00:00+08:00",
		"amount": map[string]any{"total": total, "payer_total": total, "currency": "CNY", "payer_currency": "CNY"}}
}

// RefundResource is the REFUND.* resource of rf, in status.
func RefundResource(rf Refund, status string) map[string]any {
	return map[string]any{"mchid": MchID, "out_trade_no": "", "transaction_id": rf.TransactionID, "out_refund_no": rf.OutRefundNo,
		"refund_id": rf.RefundID, "refund_status": status, "amount": map[string]any{"total": rf.Total, "refund": rf.Amount}}
}

// Notice is a notification of event about resource, its resource
// encrypted with the API v3 key and the whole signed at at with a fresh
// nonce, as WeChat Pay POSTs it.
func Notice(event string, resource any, at time.Time) (http.Header, []byte) {
	plain, err := json.Marshal(resource)
	if err != nil {
		panic(err)
	}
	nonce := randomString(12)
	block, err := aes.NewCipher([]byte(APIv3Key))
	if err != nil {
		panic(err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	ct := gcm.Seal(nil, []byte(nonce), plain, []byte("transaction"))
	body, err := json.Marshal(map[string]any{"id": randomString(16), "create_time": at.Format(time.RFC3339), "event_type": event,
		"resource_type": "encrypt-resource", "summary": "notice", "resource": map[string]string{"algorithm": "AEAD_AES_256_GCM",
			"ciphertext": base64.StdEncoding.EncodeToString(ct), "associated_data": "transaction", "nonce": nonce, "original_type": "transaction"}})
	if err != nil {
		panic(err)
	}
	return Sign(body, at), body
}

// Sign is the Wechatpay-* headers of body signed with the platform key at
// at, with a fresh nonce.
func Sign(body []byte, at time.Time) http.Header {
	return SignWith(body, at, randomString(32))
}

// SignWith is Sign with the nonce given.
func SignWith(body []byte, at time.Time, nonce string) http.Header {
	_, p := keys()
	ts := strconv.FormatInt(at.Unix(), 10)
	d := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\n", ts, nonce, body))
	sig, err := rsa.SignPKCS1v15(rand.Reader, p, crypto.SHA256, d[:])
	if err != nil {
		panic(err)
	}
	return http.Header{
		payments.HeaderWeChatTimestamp: {ts}, payments.HeaderWeChatNonce: {nonce},
		payments.HeaderWeChatSignature: {base64.StdEncoding.EncodeToString(sig)}, payments.HeaderWeChatSerial: {PlatformSerial},
		"Content-Type": {"application/json"},
	}
}

func randomString(n int) string {
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}
