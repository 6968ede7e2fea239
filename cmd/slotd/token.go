package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
)

// maxTokenTTL bounds the tokens the token command mints.
const maxTokenTTL = 30 * 24 * time.Hour

func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	db.registerAuth(fs)
	role := fs.String("role", "", "patient, doctor, admin or reception")
	sub := fs.String("sub", "", "subject: the patient id for role patient, the doctor id for role doctor")
	ttl := fs.Duration("ttl", 24*time.Hour, "validity")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	r := auth.Role(*role)
	switch r {
	case auth.RolePatient:
		if id, err := strconv.ParseInt(*sub, 10, 64); err != nil || id <= 0 {
			return fmt.Errorf("--sub must be a patient id for role patient")
		}
	case auth.RoleDoctor:
		if id, err := strconv.ParseInt(*sub, 10, 64); err != nil || id <= 0 {
			return fmt.Errorf("--sub must be a doctor id for role doctor: the token reaches only that doctor's days")
		}
	case auth.RoleAdmin, auth.RoleReception:
		if *sub == "" {
			return fmt.Errorf("--sub is required")
		}
	default:
		return fmt.Errorf("--role must be patient, doctor, admin or reception")
	}
	if *ttl <= 0 {
		return fmt.Errorf("--ttl must be positive")
	}
	if *ttl > maxTokenTTL {
		return fmt.Errorf("--ttl must be at most %v (30 days): a token cannot be taken back before it expires", maxTokenTTL)
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	signer, err := db.signer()
	if err != nil {
		return err
	}
	tok, err := signer.Mint(r, *sub, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
