package accounts

import (
	"strings"
	"testing"
)

func TestStaffNameOK(t *testing.T) {
	for in, want := range map[string]bool{
		"admin": true, "dr.martin-2_b": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "a b": false, "é": false, "a/b": false,
	} {
		if got := StaffNameOK(in); got != want {
			t.Errorf("StaffNameOK(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPasswords(t *testing.T) {
	for in, ok := range map[string]bool{
		"1234567": false, "12345678": true, strings.Repeat("x", 72): true, strings.Repeat("x", 73): false,
	} {
		if err := CheckNewPassword(in); (err == nil) != ok {
			t.Errorf("CheckNewPassword(%d bytes) = %v, want ok=%v", len(in), err, ok)
		}
	}
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !PasswordMatches(h, "correct horse") || PasswordMatches(h, "wrong") || PasswordMatches([]byte("not a hash"), "correct horse") {
		t.Fatal("the hash does not verify its password only")
	}
}
