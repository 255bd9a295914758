package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// DataOptions say which database to open and how.
type DataOptions struct {
	Path string
	// MasterKeyFile holds the master key; default Path + ".key", made beside a new database.
	MasterKeyFile string
	// Environment is the environment asked for; empty takes the stored one (test for a new
	// database). A database made for one environment never opens for the other.
	Environment string
	// New requires the database not to exist yet.
	New bool
}

// Data is an open database with its keys.
type Data struct {
	Path          string
	MasterKeyFile string
	Store         *storage.Bolt
	Keys          *secrets.Keys
	Environment   string
	// Created tells the database was made by this open.
	Created bool
}

const keyCheckPlain = "timbra master key check"

// OpenData opens (or makes) the database, its master key and its environment.
func OpenData(opt DataOptions) (*Data, error) {
	if opt.Environment != "" && opt.Environment != accounts.EnvTest && opt.Environment != accounts.EnvProduction {
		return nil, fmt.Errorf("environment %q: use test or production", opt.Environment)
	}
	if opt.MasterKeyFile == "" {
		opt.MasterKeyFile = opt.Path + ".key"
	}
	_, statErr := os.Stat(opt.Path)
	exists := statErr == nil
	if opt.New && exists {
		return nil, fmt.Errorf("database %s already exists: choose another --data path, or start it with 'timbra server --data %s'", opt.Path, opt.Path)
	}
	keys, keyCreated, err := secrets.LoadOrCreate(opt.MasterKeyFile)
	if err != nil {
		return nil, err
	}
	if exists && keyCreated {
		os.Remove(opt.MasterKeyFile)
		return nil, fmt.Errorf("database %s exists but its master key %s is missing: restore the key file (or pass --master-key-file)", opt.Path, opt.MasterKeyFile)
	}
	store, err := storage.Open(opt.Path)
	if err != nil {
		if keyCreated {
			os.Remove(opt.MasterKeyFile)
		}
		return nil, err
	}
	d := &Data{Path: opt.Path, MasterKeyFile: opt.MasterKeyFile, Store: store, Keys: keys}
	err = store.Update(context.Background(), func(tx storage.Tx) error {
		meta := tx.Meta()
		env, err := meta.Get(storage.MetaEnvironment)
		if err != nil {
			return err
		}
		if env == nil {
			d.Created = true
			d.Environment = opt.Environment
			if d.Environment == "" {
				d.Environment = accounts.EnvTest
			}
			if err := meta.Put(storage.MetaEnvironment, []byte(d.Environment)); err != nil {
				return err
			}
			if err := meta.Put(storage.MetaCreatedAt, []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
				return err
			}
			return meta.Put(storage.MetaKeyCheck, keys.Seal([]byte(keyCheckPlain), storage.MetaKeyCheck))
		}
		d.Environment = string(env)
		if opt.Environment != "" && opt.Environment != d.Environment {
			return fmt.Errorf("database %s was created for the %s environment and cannot run as %s", opt.Path, d.Environment, opt.Environment)
		}
		check, err := meta.Get(storage.MetaKeyCheck)
		if err != nil {
			return err
		}
		if plain, err := keys.Open(check, storage.MetaKeyCheck); err != nil || string(plain) != keyCheckPlain {
			return errors.New("the master key " + opt.MasterKeyFile + " does not belong to database " + opt.Path)
		}
		return nil
	})
	if err != nil {
		store.Close()
		return nil, err
	}
	return d, nil
}
