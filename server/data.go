package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// DataOptions say which database to open and how.
type DataOptions struct {
	// Path is the bbolt file.
	Path string
	// Database, when set, is a PostgreSQL URL: the database instead of the file at Path, which
	// several server nodes may share.
	Database string
	// MasterKeyFile holds the master key; default Path + ".key", made beside a new database.
	// Required with Database (every node of it needs the same key).
	MasterKeyFile string
	// Environment is the environment asked for; empty takes the stored one (test for a new
	// database). A database made for one environment never opens for the other.
	Environment string
	// New requires the database not to exist yet.
	New bool
}

// Data is an open database with its keys.
type Data struct {
	// Path is the bbolt file; empty on PostgreSQL.
	Path string
	// Name is the database as messages name it: the file, or PostgreSQL's schema.
	Name string
	// Files is where the files of the database's service go (the operator token, the first
	// credentials), by suffix: the bbolt file, or the master key file without ".key".
	Files         string
	MasterKeyFile string
	Store         storage.Store
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
	if opt.Database != "" {
		return openPostgres(opt)
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
	d := &Data{Path: opt.Path, Name: opt.Path, Files: opt.Path, MasterKeyFile: opt.MasterKeyFile, Store: store, Keys: keys}
	if err := d.settle(opt); err != nil {
		store.Close()
		return nil, err
	}
	return d, nil
}

// ErrPostgresKeyFile says why a PostgreSQL database needs its master key file named.
const ErrPostgresKeyFile = "a PostgreSQL database needs --master-key-file (TIMBRA_MASTER_KEY_FILE): the key that seals its secrets lives outside it, the same file on every node (made with a new database)"

// openPostgres is OpenData on PostgreSQL: the database exists when its environment is stored.
func openPostgres(opt DataOptions) (*Data, error) {
	if opt.MasterKeyFile == "" {
		return nil, errors.New(ErrPostgresKeyFile)
	}
	ctx := context.Background()
	store, err := storage.OpenPostgres(ctx, opt.Database)
	if err != nil {
		return nil, err
	}
	name := "PostgreSQL schema " + store.Schema()
	exists := false
	err = store.View(ctx, func(tx storage.Tx) error {
		env, err := tx.Meta().Get(storage.MetaEnvironment)
		exists = env != nil
		return err
	})
	if err == nil && opt.New && exists {
		err = fmt.Errorf("%s already holds a timbra database: start it with 'timbra server --database ...', or give another search_path", name)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	keys, keyCreated, err := secrets.LoadOrCreate(opt.MasterKeyFile)
	if err == nil && exists && keyCreated {
		os.Remove(opt.MasterKeyFile)
		err = fmt.Errorf("%s exists but the master key %s is missing: copy the key file of the nodes that made it", name, opt.MasterKeyFile)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	d := &Data{Name: name, Files: strings.TrimSuffix(opt.MasterKeyFile, ".key"), MasterKeyFile: opt.MasterKeyFile, Store: store, Keys: keys}
	if err := d.settle(opt); err != nil {
		store.Close()
		if keyCreated {
			os.Remove(opt.MasterKeyFile)
		}
		return nil, err
	}
	return d, nil
}

// settle stores the environment and the master key's check in a new database, or checks them in
// one made before.
func (d *Data) settle(opt DataOptions) error {
	keys := d.Keys
	return d.Store.Update(context.Background(), func(tx storage.Tx) error {
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
			return fmt.Errorf("database %s was created for the %s environment and cannot run as %s", d.Name, d.Environment, opt.Environment)
		}
		check, err := meta.Get(storage.MetaKeyCheck)
		if err != nil {
			return err
		}
		if plain, err := keys.Open(check, storage.MetaKeyCheck); err != nil || string(plain) != keyCheckPlain {
			return errors.New("the master key " + d.MasterKeyFile + " does not belong to database " + d.Name)
		}
		return nil
	})
}

// Discard closes and removes a database this open made, and its master key, so that a retry
// starts clean (a failed first start).
func (d *Data) Discard() {
	if p, ok := d.Store.(*storage.Postgres); ok && d.Created {
		p.Drop(context.Background())
	}
	d.Store.Close()
	if d.Path != "" {
		os.Remove(d.Path)
	}
	os.Remove(d.MasterKeyFile)
}
