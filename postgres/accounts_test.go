package postgres

import (
	"testing"

	"github.com/slotd/slotd/web/accountstest"
)

func TestAccounts(t *testing.T) {
	accountstest.Run(t, func(t testing.TB) accountstest.Store { return newStore(t) })
}
