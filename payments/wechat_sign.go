package payments

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WeChatAuthScheme is the scheme of WeChat Pay API v3's signatures.
const WeChatAuthScheme = "WECHATPAY2-SHA256-RSA2048"

// WeChatMaxSkew is how far a notification's or an answer's signed
// timestamp may be from now: WeChat Pay documents 5 minutes.
const WeChatMaxSkew = 5 * time.Minute

// The headers WeChat Pay signs its answers and notifications with.
const (
	HeaderWeChatTimestamp = "Wechatpay-Timestamp"
	HeaderWeChatNonce     = "Wechatpay-Nonce"
	HeaderWeChatSignature = "Wechatpay-Signature"
	HeaderWeChatSerial    = "Wechatpay-Serial"
)

// weChatMessage is what WeChat Pay signs: each part followed by "\n".
func weChatMessage(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// signSHA256RSA is the base64 SHA256-with-RSA (PKCS #1 v1.5) signature of
// msg.
func signSHA256RSA(key *rsa.PrivateKey, msg []byte) (string, error) {
	d := sha256.Sum256(msg)
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
	if err != nil {
		return "", fmt.Errorf("payments: signing: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// newNonce is a random 32-character nonce.
func newNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return strings.ToUpper(hex.EncodeToString(b[:])), nil
}

func pathEscape(s string) string { return url.PathEscape(s) }

// weChatError is WeChat Pay's error answer.
type weChatError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *weChatError) Error() string {
	return fmt.Sprintf("wechat pay answered %d %s: %s", e.Status, e.Code, e.Message)
}

// call sends a signed request (in, when not nil, as its JSON body) and
// decodes a verified 2xx answer into out. An answer whose signature does
// not verify is an error: it may not come from WeChat Pay.
func (p *WeChat) call(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	h, raw, err := p.send(ctx, method, path, body, maxAnswer)
	if err != nil {
		return err
	}
	if err := p.verify(h, raw, time.Now(), false); err != nil {
		return fmt.Errorf("the answer: %w", err)
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// send makes the signed request of path (and query) with body, and
// answers a 2xx answer's headers and body (at most limit bytes), or the
// error WeChat Pay answered.
func (p *WeChat) send(ctx context.Context, method, path string, body []byte, limit int64) (http.Header, []byte, error) {
	// The wall clock, as WeChat Pay's: signatures are checked against it.
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce, err := newNonce()
	if err != nil {
		return nil, nil, err
	}
	sig, err := signSHA256RSA(p.c.MerchantKey, weChatMessage(method, path, ts, nonce, string(body)))
	if err != nil {
		return nil, nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, method, p.c.APIURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	hr.Header.Set("Authorization", fmt.Sprintf(`%s mchid="%s",nonce_str="%s",signature="%s",timestamp="%s",serial_no="%s"`,
		WeChatAuthScheme, p.c.MchID, nonce, sig, ts, p.c.MerchantSerial))
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(hr)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		e := &weChatError{Status: resp.StatusCode}
		_ = json.Unmarshal(raw, e) // an unreadable error is still the status's
		return nil, nil, e
	}
	if int64(len(raw)) > limit {
		return nil, nil, fmt.Errorf("the answer is larger than %d bytes", limit)
	}
	return resp.Header, raw, nil
}

// verify checks a message WeChat Pay signed: the platform key's serial,
// the signed timestamp within WeChatMaxSkew of now, the signature over
// timestamp, nonce and body, and, for a notification (once), that its
// nonce was not seen before (a replay). Anything else is ErrUnverified.
func (p *WeChat) verify(h http.Header, body []byte, now time.Time, once bool) error {
	ts, nonce, sig, serial := h.Get(HeaderWeChatTimestamp), h.Get(HeaderWeChatNonce), h.Get(HeaderWeChatSignature), h.Get(HeaderWeChatSerial)
	if serial != p.c.PlatformSerial {
		return fmt.Errorf("%w: signed by %q, not the configured platform key", ErrUnverified, serial)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || nonce == "" || len(nonce) > 64 {
		return fmt.Errorf("%w: no timestamp or nonce", ErrUnverified)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WeChatMaxSkew || d < -WeChatMaxSkew {
		return fmt.Errorf("%w: signed %v from now (at most %v)", ErrUnverified, d.Round(time.Second), WeChatMaxSkew)
	}
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: the signature is not base64", ErrUnverified)
	}
	d := sha256.Sum256(weChatMessage(ts, nonce, string(body)))
	if err := rsa.VerifyPKCS1v15(p.c.PlatformKey, crypto.SHA256, d[:], raw); err != nil {
		return fmt.Errorf("%w: %v", ErrUnverified, err)
	}
	if once && !p.nonces.first(nonce, time.Unix(sec, 0), now) {
		return fmt.Errorf("%w: the nonce was seen already (a replay)", ErrUnverified)
	}
	return nil
}

// nonceLog remembers the nonces of verified notifications while their
// timestamps are fresh, so that a captured notification sent again is
// refused. It is the process's: a replay to another instance passes it,
// and the notification is then applied once all the same (a payment or a
// refund is recorded once).
type nonceLog struct {
	mu   sync.Mutex
	keep time.Duration
	seen map[string]time.Time // nonce → its timestamp
}

// maxNonces bounds the log; past it the oldest half is dropped (they are
// refused by their timestamp soon enough).
const maxNonces = 100_000

func newNonceLog(skew time.Duration) *nonceLog {
	return &nonceLog{keep: 2 * skew, seen: map[string]time.Time{}}
}

// first records nonce signed at ts and reports whether it is new.
func (l *nonceLog) first(nonce string, ts, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[nonce]; ok {
		return false
	}
	if len(l.seen) >= maxNonces {
		for n, at := range l.seen {
			if now.Sub(at) > l.keep/2 {
				delete(l.seen, n)
			}
		}
	}
	l.seen[nonce] = ts
	return true
}

// weChatAEAD is the ciphertext of an encrypted resource.
type weChatAEAD struct {
	Algorithm      string `json:"algorithm"`
	Ciphertext     string `json:"ciphertext"`
	AssociatedData string `json:"associated_data"`
	Nonce          string `json:"nonce"`
	OriginalType   string `json:"original_type"`
}

// ParseWeChatPrivateKey reads the merchant's private key (apiclient_key.pem,
// PKCS #8 or PKCS #1 PEM).
func ParseWeChatPrivateKey(pemData []byte) (*rsa.PrivateKey, error) {
	b, _ := pem.Decode(pemData)
	if b == nil {
		return nil, errors.New("payments: the merchant private key is not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("payments: the merchant private key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("payments: the merchant private key is not RSA")
	}
	return rk, nil
}

// ParseWeChatPlatformKey reads WeChat Pay's verification key from PEM: a
// platform certificate (its serial number, in upper-case hex, is the
// serial it signs with) or a public key (PUBLIC KEY; its serial is the
// key's id, given apart).
func ParseWeChatPlatformKey(pemData []byte) (key *rsa.PublicKey, serial string, err error) {
	b, _ := pem.Decode(pemData)
	if b == nil {
		return nil, "", errors.New("payments: the wechat platform certificate or public key is not PEM")
	}
	var pub any
	switch b.Type {
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, "", fmt.Errorf("payments: the wechat platform certificate: %w", err)
		}
		pub, serial = c.PublicKey, strings.ToUpper(c.SerialNumber.Text(16))
	default:
		if pub, err = x509.ParsePKIXPublicKey(b.Bytes); err != nil {
			return nil, "", fmt.Errorf("payments: the wechat public key: %w", err)
		}
	}
	rk, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, "", errors.New("payments: the wechat platform key is not RSA")
	}
	return rk, serial, nil
}
