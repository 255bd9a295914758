package server

import (
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// KeyMatches tells whether keys open a database's key check (meta key_check), that is whether
// the master key belongs to the database ('timbra server check' and 'restore').
func KeyMatches(keys *secrets.Keys, keyCheck []byte) bool {
	plain, err := keys.Open(keyCheck, storage.MetaKeyCheck)
	return err == nil && string(plain) == keyCheckPlain
}
