package web_test

import (
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/sqlite"
	"github.com/slotd/slotd/web"
)

// Both stores implement web.Accounts.
var (
	_ web.Accounts = (*sqlite.Store)(nil)
	_ web.Accounts = (*postgres.Store)(nil)
)
