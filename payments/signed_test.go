package payments

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
)

func TestSignedRefund(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !auth.VerifyPayment(secret, body, r.Header.Get(auth.PaymentSignatureHeader)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var in struct {
			RefundID  int64  `json:"refundId"`
			TradeNo   string `json:"tradeNo"`
			Amount    int64  `json:"amount"`
			Currency  string `json:"currency"`
			Timestamp int64  `json:"timestamp"`
		}
		if err := json.Unmarshal(body, &in); err != nil || in.TradeNo != "T1" || in.Amount != 500 || in.Currency != "EUR" || in.Timestamp != 1700000000 {
			http.Error(w, "bad body "+string(body), http.StatusBadRequest)
			return
		}
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		w.Write([]byte(`{"refundId":"re_7"}`))
	}))
	defer srv.Close()
	req := RefundRequest{RefundID: 7, TradeNo: "T1", Amount: 500, Currency: "EUR"}
	p := &Signed{URL: srv.URL, Secret: secret, Now: func() time.Time { return time.Unix(1700000000, 0) }}
	for range 2 {
		ref, err := p.Refund(context.Background(), req)
		if err != nil || ref != "re_7" {
			t.Fatalf("Refund = %q, %v", ref, err)
		}
	}
	if len(keys) != 2 || keys[0] != "slotd-refund-7" || keys[1] != keys[0] {
		t.Fatalf("idempotency keys %v, want the refund's twice", keys)
	}

	wrong := &Signed{URL: srv.URL, Secret: []byte("another secret, 32 bytes long...")}
	if _, err := wrong.Refund(context.Background(), req); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("refused signature: %v", err)
	}
	if _, err := (&Signed{}).Refund(context.Background(), req); err == nil {
		t.Fatal("an unconfigured provider refunded")
	}
}

func TestSignedRefundBadAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }))
	defer srv.Close()
	p := &Signed{URL: srv.URL, Secret: []byte("s")}
	if _, err := p.Refund(context.Background(), RefundRequest{RefundID: 1, Amount: 1}); err == nil {
		t.Fatal("an answer without refundId was taken")
	}
}

func TestSimulatedRefundIsIdempotent(t *testing.T) {
	a, err := Simulated{}.Refund(context.Background(), RefundRequest{RefundID: 3, Amount: 100})
	b, _ := Simulated{}.Refund(context.Background(), RefundRequest{RefundID: 3, Amount: 100})
	if err != nil || a == "" || a != b {
		t.Fatalf("simulated refunds %q, %q, %v", a, b, err)
	}
	if _, err := (Simulated{}).Refund(context.Background(), RefundRequest{RefundID: 3}); err == nil {
		t.Fatal("a refund of nothing succeeded")
	}
}
