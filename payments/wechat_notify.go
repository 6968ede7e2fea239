package payments

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// weChatNotice is a notification's envelope.
type weChatNotice struct {
	ID           string     `json:"id"`
	EventType    string     `json:"event_type"`
	ResourceType string     `json:"resource_type"`
	Resource     weChatAEAD `json:"resource"`
}

// weChatTransaction is a TRANSACTION.SUCCESS resource, decrypted.
type weChatTransaction struct {
	AppID         string `json:"appid"`
	MchID         string `json:"mchid"`
	OutTradeNo    string `json:"out_trade_no"`
	TransactionID string `json:"transaction_id"`
	TradeState    string `json:"trade_state"`
	Attach        string `json:"attach"`
	Amount        struct {
		Total    int64  `json:"total"`
		Currency string `json:"currency"`
	} `json:"amount"`
}

// weChatRefund is a REFUND.* resource, decrypted.
type weChatRefund struct {
	MchID        string `json:"mchid"`
	OutRefundNo  string `json:"out_refund_no"`
	RefundID     string `json:"refund_id"`
	RefundStatus string `json:"refund_status"`
}

// Notification verifies a WeChat Pay notification (the platform key's
// signature over its timestamp, nonce and raw body; the timestamp within
// WeChatMaxSkew of now; a nonce not seen before), decrypts its resource
// with the API v3 key and parses the events slotd acts on: a successful
// payment (TRANSACTION.SUCCESS) of this merchant and app, and a refund's
// outcome (REFUND.SUCCESS, REFUND.ABNORMAL, REFUND.CLOSED).
func (p *WeChat) Notification(h http.Header, body []byte, now time.Time) (Notification, error) {
	if err := p.verify(h, body, now, true); err != nil {
		return Notification{}, err
	}
	var n weChatNotice
	if err := json.Unmarshal(body, &n); err != nil {
		return Notification{}, fmt.Errorf("payments: the wechat notification is not JSON: %w", err)
	}
	if n.ResourceType != "encrypt-resource" {
		return Notification{}, nil
	}
	plain, err := p.decrypt(n.Resource)
	if err != nil {
		return Notification{}, fmt.Errorf("payments: wechat notification %s: %w", n.ID, err)
	}
	switch n.EventType {
	case "TRANSACTION.SUCCESS":
		var t weChatTransaction
		if err := json.Unmarshal(plain, &t); err != nil {
			return Notification{}, fmt.Errorf("payments: wechat notification %s: %w", n.ID, err)
		}
		if t.TradeState != "SUCCESS" {
			return Notification{}, nil
		}
		if t.MchID != p.c.MchID || t.AppID != p.c.AppID {
			return Notification{}, fmt.Errorf("%w: the payment is another merchant's or app's", ErrUnverified)
		}
		appt, ok := appointmentOfTradeNo(t.OutTradeNo)
		if !ok {
			return Notification{}, fmt.Errorf("payments: wechat payment %s is not of a slotd appointment", t.TransactionID)
		}
		return Notification{Paid: &Paid{AppointmentID: appt, Amount: t.Amount.Total, Currency: t.Amount.Currency, PaymentID: t.TransactionID}}, nil
	case "REFUND.SUCCESS", "REFUND.ABNORMAL", "REFUND.CLOSED":
		var r weChatRefund
		if err := json.Unmarshal(plain, &r); err != nil {
			return Notification{}, fmt.Errorf("payments: wechat notification %s: %w", n.ID, err)
		}
		if r.MchID != p.c.MchID {
			return Notification{}, fmt.Errorf("%w: the refund is another merchant's", ErrUnverified)
		}
		id, ok := refundIDOf(r.OutRefundNo)
		if !ok {
			return Notification{}, nil // a refund made at the merchant platform, not slotd's
		}
		u := &RefundUpdate{RefundID: id, ProviderRef: r.RefundID}
		if r.RefundStatus != "SUCCESS" {
			u.Failure = fmt.Sprintf("wechat refund %s is %s", r.RefundID, r.RefundStatus)
		}
		return Notification{Refund: u}, nil
	}
	return Notification{}, nil
}

// decrypt opens an AEAD_AES_256_GCM resource with the API v3 key.
func (p *WeChat) decrypt(r weChatAEAD) ([]byte, error) {
	if r.Algorithm != "AEAD_AES_256_GCM" {
		return nil, fmt.Errorf("the resource is encrypted with %q", r.Algorithm)
	}
	ct, err := base64.StdEncoding.DecodeString(r.Ciphertext)
	if err != nil {
		return nil, fmt.Errorf("the resource's ciphertext is not base64")
	}
	block, err := aes.NewCipher([]byte(p.c.APIv3Key))
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, len(r.Nonce))
	if err != nil {
		return nil, fmt.Errorf("the resource's nonce: %w", err)
	}
	plain, err := gcm.Open(nil, []byte(r.Nonce), ct, []byte(r.AssociatedData))
	if err != nil {
		return nil, fmt.Errorf("the resource does not decrypt with the API v3 key")
	}
	return plain, nil
}
