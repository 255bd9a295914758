package storage

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// migrations run in order at open, inside one transaction; migrations[i] brings the schema from
// version i to i+1. Append only: never edit or reorder a migration that has shipped.
var migrations = []func(tx *bolt.Tx) error{
	// 1: the foundation buckets.
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketTenants, bucketPeople, bucketPeopleByEmail,
			bucketAPIKeys, bucketAPIKeysByLookup, bucketAPIKeysByPerson} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
}

// SchemaVersion is the version a database has after Open.
var SchemaVersion = len(migrations)

func schemaVersion(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0, nil
	}
	v := meta.Get([]byte(MetaSchema))
	if v == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, fmt.Errorf("schema version %q is not a number", v)
	}
	return n, nil
}

func migrate(tx *bolt.Tx) error {
	return migrateTo(tx, len(migrations))
}

func migrateTo(tx *bolt.Tx, target int) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	current, err := schemaVersion(tx)
	if err != nil {
		return err
	}
	if current > len(migrations) {
		return fmt.Errorf("the database has schema %d, newer than this timbra knows (%d): upgrade timbra", current, len(migrations))
	}
	for v := current; v < target; v++ {
		if err := migrations[v](tx); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if err := meta.Put([]byte(MetaSchema), []byte(strconv.Itoa(v+1))); err != nil {
			return err
		}
	}
	return nil
}
