package pii

import "encoding/base64"

func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
