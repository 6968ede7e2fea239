package payments

import (
	"bytes"
	"context"
	"crypto/sha1" // WeChat Pay's bill digest is SHA1, an integrity check (the request is signed)
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// maxBill bounds a downloaded trade bill (a busy clinic's day is a few
// hundred kilobytes).
const maxBill = 32 << 20

// Statement reads WeChat Pay's trade bill (bill_type ALL) of the China
// day from falls on, the day WeChat Pay's bills cover: it asks for the
// bill's download URL, downloads it with a signed request from the API's
// own host only, checks its SHA1 digest and parses it. A SUCCESS row is a
// payment (its order amount), a REFUND row a refund (slotd's refund id
// read from the out_refund_no).
func (p *WeChat) Statement(ctx context.Context, from, _ time.Time) ([]booking.StatementLine, error) {
	day := from.In(weChatZone).Format(time.DateOnly)
	var bill struct {
		HashType    string `json:"hash_type"`
		HashValue   string `json:"hash_value"`
		DownloadURL string `json:"download_url"`
	}
	if err := p.call(ctx, http.MethodGet, "/v3/bill/tradebill?bill_date="+day+"&bill_type=ALL", nil, &bill); err != nil {
		if e := (*weChatError)(nil); errors.As(err, &e) && e.Code == "NO_STATEMENT_EXIST" {
			return []booking.StatementLine{}, nil // no trade that day
		}
		return nil, fmt.Errorf("payments: wechat trade bill of %s: %w", day, err)
	}
	u, err := url.Parse(bill.DownloadURL)
	api, _ := url.Parse(p.c.APIURL)
	if err != nil || u.Scheme != api.Scheme || u.Host != api.Host {
		return nil, fmt.Errorf("payments: wechat trade bill of %s: the download URL is not WeChat Pay's API", day)
	}
	_, raw, err := p.send(ctx, http.MethodGet, u.RequestURI(), nil, maxBill)
	if err != nil {
		return nil, fmt.Errorf("payments: wechat trade bill of %s: downloading: %w", day, err)
	}
	sum := sha1.Sum(raw)
	if !strings.EqualFold(bill.HashType, "SHA1") || !strings.EqualFold(hex.EncodeToString(sum[:]), bill.HashValue) {
		return nil, fmt.Errorf("payments: wechat trade bill of %s: its digest does not match", day)
	}
	return parseWeChatBill(raw)
}

// parseWeChatBill reads a trade bill: a header row, one row per trade
// (every field prefixed with "`"), then the summary, which is not read.
// Columns are found by their documented names.
func parseWeChatBill(raw []byte) ([]booking.StatementLine, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("payments: the wechat trade bill has no header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	need := []string{"交易时间", "微信订单号", "交易状态", "订单金额", "微信退款单号", "商户退款单号", "退款金额"}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("payments: the wechat trade bill has no column %s", n)
		}
	}
	out := []booking.StatementLine{}
	for {
		rec, err := r.Read()
		if err != nil || len(rec) == 0 || !strings.HasPrefix(rec[0], "`") {
			break // the end, or the summary's header
		}
		if len(rec) < len(head) || len(out) >= booking.MaxStatementLines {
			return nil, fmt.Errorf("payments: the wechat trade bill has a short row or too many")
		}
		f := func(n string) string { return strings.TrimPrefix(strings.TrimSpace(rec[col[n]]), "`") }
		at, err := time.ParseInLocation(time.DateTime, f("交易时间"), weChatZone)
		if err != nil {
			return nil, fmt.Errorf("payments: the wechat trade bill's time %q", f("交易时间"))
		}
		l := booking.StatementLine{TradeNo: f("微信订单号"), At: at.UTC()}
		var amount string
		switch f("交易状态") {
		case "SUCCESS":
			l.Kind, amount = booking.StatementPayment, f("订单金额")
		case "REFUND":
			l.Kind, amount, l.RefundRef = booking.StatementRefund, f("退款金额"), f("微信退款单号")
			l.RefundID, _ = refundIDOf(f("商户退款单号"))
		default:
			continue // closed, revoked: no money moved
		}
		if l.Amount, err = yuanToFen(amount); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// yuanToFen reads an amount written in yuan with two decimals ("20.00").
func yuanToFen(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("payments: the wechat trade bill's amount %q", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	y, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || y < 0 || y > booking.MaxFeeCents/100 {
		return 0, fmt.Errorf("payments: the wechat trade bill's amount %q", s)
	}
	return y*100 + f, nil
}
