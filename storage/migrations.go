package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// migrations run in order at open, inside one transaction; migrations[i] brings the schema from
// version i to i+1. Append only: never edit or reorder a migration that has shipped.
var migrations = []func(tx kvTx) error{
	// 1: the foundation buckets.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketTenants, bucketPeople, bucketPeopleByEmail,
			bucketAPIKeys, bucketAPIKeysByLookup, bucketAPIKeysByPerson} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 2: the API key lookup index carries what authentication needs (KeyRef), not only where
	// the key is.
	func(tx kvTx) error {
		keys, lookup := tx.Bucket(bucketAPIKeys), tx.Bucket(bucketAPIKeysByLookup)
		people := tx.Bucket(bucketPeople)
		var all []APIKey // read everything first: a bucket must not change under ForEach
		err := keys.ForEach(func(k, raw []byte) error {
			var ak APIKey
			if err := json.Unmarshal(raw, &ak); err != nil {
				return fmt.Errorf("decode api key %s: %w", k, err)
			}
			var p Person
			if praw := people.Get(key(ak.TenantID, ak.PersonID)); praw != nil {
				if err := decodeRecord(praw, &p); err != nil {
					return fmt.Errorf("decode person of api key %s: %w", k, err)
				}
			}
			ak.PersonIsOwner = p.IsOwner
			all = append(all, ak)
			return nil
		})
		if err != nil {
			return err
		}
		for _, ak := range all {
			raw, err := json.Marshal(ak)
			if err != nil {
				return err
			}
			if err := keys.Put(key(ak.TenantID, ak.ID), raw); err != nil {
				return err
			}
			if err := lookup.Put(ak.Lookup, encodeKeyRef(ak)); err != nil {
				return err
			}
		}
		return nil
	},
	// 3: events, webhooks, deliveries and the outbox.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketWebhooks, bucketEvents, bucketEventsByRelated, bucketDeliveries,
			bucketDeliveriesByWebhook, bucketDeliveriesPending, bucketOutbox} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 4: the imported SAT catalogs.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketCatalogSet, bucketCatalogRows} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 5: employer and employee data of people.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketEmployers, bucketEmployees} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 6: tax files (certificates and private keys) and their indexes.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketTaxFiles, bucketTaxFilesByPerson, bucketTaxFilesCurrent} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 7: products.
	func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists(bucketProducts)
		return err
	},
	// 8: stamped invoices and their UUID index.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketInvoices, bucketInvoicesByUUID} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 9: bulk-download rules.
	func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists(bucketDownloadRules)
		return err
	},
	// 10: Auto CFDI settings and portal names, and the portal-name index of all tenants.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketAutoInvoice, bucketPortalNames} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 11: Auto CFDI tickets, their number index and the usage report's day indexes.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketTickets, bucketTicketsByNumber, bucketTicketsByPaid, bucketTicketsByRecorded} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 12: the invoices' summaries (what lists filter by) and the pending cancellations of every
	// tenant, written for every stored invoice, and their date and series as fields.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketInvoicesSummary, bucketInvoicesCanceling} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return indexInvoices(tx)
	},
	// 13: the outbox becomes one queue per webhook whose entries carry what an attempt needs,
	// with a pending counter per webhook; deliveries keep their event's synthetic flag. A
	// delivery an older engine had claimed (a lease in the future) is due at once.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketDeliveriesDue, bucketDeliveriesPendingCount} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return indexOutbox(tx, time.Now().UTC())
	},
	// 14: deliveries and events are written in the binary form of codec.go. Those written
	// before stay JSON and read as they are, so nothing moves: the version only keeps an older
	// timbra, which reads JSON alone, from opening the database.
	func(kvTx) error { return nil },
	// 15: lists know their totals without walking: events by type and the events of each hour
	// counted (of any type and of each type); each tenant's records of the listed collections
	// counted. Invoices are written in the binary form of codec.go from now on (those written
	// before stay JSON and read as they are).
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketEventsByType, bucketEventsHours, bucketCounts} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if err := indexEventTypes(tx); err != nil {
			return err
		}
		return countListed(tx)
	},
	// 16: invoices are indexed by every field their list filters on, each index counted, so a
	// filtered list walks the invoices that match its most selective filter, not the tenant's.
	func(tx kvTx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketInvoicesBy); err != nil {
			return err
		}
		return indexInvoicesBy(tx)
	},
	// 17: tickets are indexed by payment day under each person who sees them and under their
	// status, each counted, so a cashier's list and a status's walk only their tickets.
	func(tx kvTx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketTicketsBy); err != nil {
			return err
		}
		return indexTicketsBy(tx)
	},
	// 18: a delivery keeps the text of its attempts' errors (the details section of its binary
	// form). Records written before have none and read as they are, so nothing moves: the version
	// only keeps an older timbra, which cannot read the section, from opening the database.
	func(kvTx) error { return nil },
	// 19: bulk download requests, the worker's index of those with work left, their packages
	// (ZIPs as the SAT sent them, in chunks of 1 MiB) and the index of their CFDIs and metadata.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketDownloadRequests, bucketDownloadRequestsActive, bucketDownloadPackages, bucketDownloadItems} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 20: the credit movements of each tenant (grants, transfers, consumption), from now on.
	func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists(bucketStampTransactions)
		return err
	},
	// 21: the signed cartas manifiesto, every version of each person's, from now on.
	func(tx kvTx) error {
		_, err := tx.CreateBucketIfNotExists(bucketManifests)
		return err
	},
	// 22: download requests are summarized and indexed by every field a search filters on (the
	// creation day among them), each value counted, so a search walks only the requests of its
	// most selective filter and decodes only its page.
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketDownloadRequestsSummary, bucketDownloadRequestsBy} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return indexDownloadRequests(tx)
	},
	// 23: credits held before movements were recorded (schema 20) get an opening movement each,
	// before the tenant's first, so every person's history of movements adds up to its balance.
	func(tx kvTx) error { return openingMovements(tx, time.Now()) },
	// 24: a bulk download's CFDI index entry is where the CFDI's file is in the stored package
	// (downloadrequests.xmlEntry), no longer its fields and XML in JSON. Entries written before
	// read as they are, so nothing moves: the version only keeps an older timbra, which reads
	// JSON alone, from opening the database.
	func(kvTx) error { return nil },
	// 25: the index of the download requests by their query to the SAT (download_requests_by_query),
	// written for the requests stored before.
	indexDownloadQueries,
	// 26: people are written in the binary form (codec_person.go); those written before read as
	// they are, so nothing moves: the version only keeps an older timbra, which reads JSON people
	// alone, from opening the database.
	func(kvTx) error { return nil },
	// 27: invoices are counted by every pair of the fields lists filter on (invoices_pairs), so
	// that a list filtered on two fields knows its total without walking either index.
	countInvoicePairs,
	// 28: tickets are counted by person and by issuer in each status (tickets_in_status), so that
	// a list of one status and one person or issuer knows its total without walking.
	countTicketsInStatus,
	// 29: download requests are counted by every pair of the fields a search filters on
	// (download_requests_pairs), as invoices are since 27.
	countDownloadRequestPairs,
	// 30: each related object's events are counted by hour (events_related_hours) and its index
	// entries carry their types, so that the events of one object are counted and paged as the
	// tenant's are, without decoding them.
	indexEventsByRelated,
	// 31: invoices are counted by the day of their date, of all and of each filtered value
	// (invoices_days), so that a list between two dates knows its total from a counter a day.
	countInvoiceDays,
	// 32: the leases of the work several server nodes share, and the nodes (cluster.go).
	func(tx kvTx) error {
		for _, b := range [][]byte{bucketLeases, bucketNodes} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
}

// listedBuckets are the buckets whose keys are counted per tenant in counts.
var listedBuckets = [][]byte{bucketPeople, bucketAPIKeys, bucketWebhooks, bucketInvoices, bucketProducts,
	bucketTickets, bucketDownloadRules, bucketTaxFilesCurrent}

// countListed writes the counts of every listed bucket (per tenant) and of each webhook's
// deliveries (per "<tenant>/<webhookID>").
func countListed(tx kvTx) error {
	for _, name := range listedBuckets {
		if err := countKeys(tx, name, func(k []byte) int { return bytes.IndexByte(k, '/') }); err != nil {
			return err
		}
	}
	return countKeys(tx, bucketDeliveriesByWebhook, func(k []byte) int { return bytes.LastIndexByte(k, '/') })
}

// countKeys counts the keys of a bucket by the part before the byte at end(k), and writes the
// counts to its tally.
func countKeys(tx kvTx, name []byte, end func(k []byte) int) error {
	n := map[string]int64{}
	if err := tx.Bucket(name).ForEach(func(k, _ []byte) error {
		i := end(k)
		if i < 0 {
			return fmt.Errorf("malformed key %q in %s", k, name)
		}
		n[string(k[:i])]++
		return nil
	}); err != nil {
		return err
	}
	t := tally{tx.Bucket(bucketCounts), name}
	for part, c := range n {
		if err := t.add(part, c); err != nil {
			return err
		}
	}
	return nil
}

// eachStoredEvent calls fn with every stored event, its id set from its key (a migration).
func eachStoredEvent(tx kvTx, fn func(tenant string, e Event) error) error {
	return tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
		tenant, id, ok := strings.Cut(string(k), "/")
		if !ok {
			return fmt.Errorf("malformed event key %q", k)
		}
		var e Event
		if err := decodeRecord(v, &e); err != nil {
			return fmt.Errorf("decode event %s: %w", k, err)
		}
		e.ID = id
		return fn(tenant, e)
	})
}

// indexEventTypes writes events_by_type and events_hours for every stored event.
func indexEventTypes(tx kvTx) error {
	byType, hours := tx.Bucket(bucketEventsByType), tx.Bucket(bucketEventsHours)
	return eachStoredEvent(tx, func(tenant string, e Event) error {
		if err := byType.Put(key(tenant, e.Type, e.ID), nil); err != nil {
			return err
		}
		return countEvent(hours, tenant, e, 1)
	})
}

// indexEventsByRelated writes each event's type into its events_by_related entry and counts it
// in events_related_hours (migration 30).
func indexEventsByRelated(tx kvTx) error {
	relHours, err := tx.CreateBucketIfNotExists(bucketEventsRelatedHours)
	if err != nil {
		return err
	}
	byRelated := tx.Bucket(bucketEventsByRelated)
	return eachStoredEvent(tx, func(tenant string, e Event) error {
		if err := byRelated.Put(key(tenant, e.RelatedObjectID, e.ID), []byte(e.Type)); err != nil {
			return err
		}
		return countRelated(relHours, tenant, e, 1)
	})
}

// indexOutbox writes deliveries_due and deliveries_pending_count for every pending delivery, and
// drops the outbox of schema 3.
func indexOutbox(tx kvTx, now time.Time) error {
	var pending [][]byte // read first: the walk must not see the buckets it writes
	if err := tx.Bucket(bucketDeliveriesPending).ForEach(func(k, _ []byte) error {
		pending = append(pending, bytes.Clone(k))
		return nil
	}); err != nil {
		return err
	}
	events := tx.Bucket(bucketEvents)
	for _, k := range pending {
		parts := strings.SplitN(string(k), "/", 3)
		if len(parts) != 3 {
			return fmt.Errorf("malformed pending index key %q", k)
		}
		d := newTx(tx).Deliveries(parts[0])
		raw := tx.Bucket(bucketDeliveries).Get(key(parts[0], parts[2]))
		if raw == nil {
			continue
		}
		var old struct {
			Delivery
			Claimed bool `json:"claimed"`
		}
		if err := json.Unmarshal(raw, &old); err != nil {
			return fmt.Errorf("decode delivery %s: %w", k, err)
		}
		v := old.Delivery
		if old.Claimed || v.NextAttemptAt == nil {
			v.NextAttemptAt = &now
		}
		if ev := events.Get(key(parts[0], v.EventID)); ev != nil {
			var e struct {
				Synthetic bool `json:"synthetic"`
			}
			if err := json.Unmarshal(ev, &e); err != nil {
				return fmt.Errorf("decode event of delivery %s: %w", k, err)
			}
			v.Synthetic = e.Synthetic
		}
		// Put as if new: it writes the queue entry and counts the delivery once
		if err := tx.Bucket(bucketDeliveries).Delete(key(parts[0], v.ID)); err != nil {
			return err
		}
		if err := d.Put(v); err != nil {
			return err
		}
	}
	if tx.Bucket(bucketOutbox) != nil {
		return tx.DeleteBucket(bucketOutbox)
	}
	return nil
}

// indexDownloadQueries writes download_requests_by_query for every stored download request.
func indexDownloadQueries(tx kvTx) error {
	b, err := tx.CreateBucketIfNotExists(bucketDownloadRequestsQuery)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketDownloadRequests).ForEach(func(k, raw []byte) error {
		tenant, id, ok := strings.Cut(string(k), "/")
		if !ok {
			return fmt.Errorf("malformed download request key %q", k)
		}
		var r DownloadRequest
		if err := decodeRecord(raw, &r); err != nil {
			return fmt.Errorf("decode download request %s: %w", k, err)
		}
		return b.Put(key(tenant, r.QueryKey(), id), r.queryState())
	})
}

// SchemaVersion is the version a database has after Open.
var SchemaVersion = len(migrations)

func schemaVersion(tx kvTx) (int, error) {
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

func migrate(tx kvTx) error {
	return migrateTo(tx, len(migrations))
}

func migrateTo(tx kvTx, target int) error {
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
