package storage

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

var bucketStampTransactions = []byte("stamp_transactions")

// StampTransaction is one movement of a tenant's credits (stamps, validations or tickets): a
// grant (Purchase: FromPersonID empty), a transfer between two people, or a consumption (a
// stamp, a ticket, a validation: ToPersonID empty). FromBalance and ToBalance are the people's
// balances of that credit type after it.
type StampTransaction struct {
	ID                string    `json:"id"`
	TenantID          string    `json:"tenantId"`
	Consecutive       int64     `json:"consecutive"`
	FromPersonID      string    `json:"fromPersonId,omitempty"`
	ToPersonID        string    `json:"toPersonId,omitempty"`
	Amount            int64     `json:"amount"`
	TransactionType   int       `json:"transactionType"`
	TransactionStatus int       `json:"transactionStatus"`
	CreditType        int       `json:"creditType"`
	ReferenceID       string    `json:"referenceId,omitempty"`
	Comments          string    `json:"comments,omitempty"`
	FromBalance       *int64    `json:"fromBalance,omitempty"`
	ToBalance         *int64    `json:"toBalance,omitempty"`
	CreatedAt         time.Time `json:"createdAt"`
}

// StampTransactions is the credit movements of one tenant, in creation order; they are never
// changed or deleted.
type StampTransactions interface {
	// Get returns a transaction, ErrNotFound when the tenant has none with that id.
	Get(id string) (StampTransaction, error)
	// Add saves a new transaction.
	Add(t StampTransaction) error
	// List returns transactions in creation order from offset, at most limit, and the total.
	List(offset, limit int) ([]StampTransaction, int, error)
}

func (t collections) StampTransactions(tenantID string) StampTransactions {
	return kvStampTransactions{newListed[StampTransaction](t, bucketStampTransactions, tenantID)}
}

type kvStampTransactions struct{ records[StampTransaction] }

func (s kvStampTransactions) Get(id string) (StampTransaction, error) { return s.get(id) }

func (s kvStampTransactions) Add(v StampTransaction) error {
	v.TenantID = s.tenant
	return s.put(v.ID, v)
}

func (s kvStampTransactions) List(offset, limit int) ([]StampTransaction, int, error) {
	return s.page(offset, limit)
}

// OpeningComment is the comment of an opening movement (openingMovements).
const OpeningComment = "opening balance: held before credit movements were recorded"

// openingMovements writes, for each person whose balance of a credit type is more than its
// recorded movements add up to (credits held before the movements were recorded, schema 20),
// one opening movement of the difference: a grant (type 1) to the person, with the balance
// after it, placed before the tenant's first movement. The tenant's movements are then numbered
// again in order, so each person's history adds up to its balance.
func openingMovements(tx kvTx, now time.Time) error {
	type opening struct {
		person     string
		creditType int
		amount     int64
	}
	byTenant := map[string][]opening{}
	var tenants []string
	err := tx.Bucket(bucketPeople).ForEach(func(k, v []byte) error {
		tenant, id, err := splitRef(k)
		if err != nil {
			return err
		}
		var p Person
		if err := decodeRecord(v, &p); err != nil {
			return fmt.Errorf("decode person %s: %w", k, err)
		}
		for _, b := range p.Balances {
			if b.Available != 0 {
				if _, seen := byTenant[tenant]; !seen {
					tenants = append(tenants, tenant)
				}
				byTenant[tenant] = append(byTenant[tenant], opening{id, b.CreditType, b.Available})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, tenant := range tenants {
		txs := newTx(tx).StampTransactions(tenant)
		_, n, err := txs.List(0, 0)
		if err != nil {
			return err
		}
		past, _, err := txs.List(0, n)
		if err != nil {
			return err
		}
		type held struct {
			person     string
			creditType int
		}
		net := map[held]int64{} // what each person's movements of a credit type add up to
		for _, t := range past {
			if t.ToPersonID != "" {
				net[held{t.ToPersonID, t.CreditType}] += t.Amount
			}
			if t.FromPersonID != "" {
				net[held{t.FromPersonID, t.CreditType}] -= t.Amount
			}
		}
		var amounts []opening
		for _, o := range byTenant[tenant] {
			// more movements than balance is nothing to open: only a shortfall is
			if o.amount -= net[held{o.person, o.creditType}]; o.amount > 0 {
				amounts = append(amounts, o)
			}
		}
		if len(amounts) == 0 {
			continue
		}
		at := now.UTC()
		if len(past) > 0 && past[0].CreatedAt.Before(at) {
			at = past[0].CreatedAt.UTC() // the history starts with its opening
		}
		last := at.UnixMilli() // the millisecond of the last opening's id: before the first movement's
		if len(past) > 0 {
			last = min(last, idMillis(past[0].ID)-1)
		}
		first := last - int64(len(amounts)-1)/4096
		var added []StampTransaction
		for i, o := range amounts {
			after := o.amount
			added = append(added, StampTransaction{ID: uuidV7(first+int64(i/4096), uint16(i%4096)), ToPersonID: o.person, Amount: o.amount,
				TransactionType: 1, TransactionStatus: 1, CreditType: o.creditType, Comments: OpeningComment, ToBalance: &after, CreatedAt: at})
		}
		for i, t := range append(added, past...) {
			t.Consecutive = int64(i + 1)
			if err := txs.Add(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// idMillis is the Unix millisecond of a UUID version 7 (its first 48 bits); a record id that
// is not one reads as the largest time, so it sorts nothing before it.
func idMillis(id string) int64 {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) < 12 {
		return math.MaxInt64
	}
	ms, err := strconv.ParseInt(h[:12], 16, 64)
	if err != nil {
		return math.MaxInt64
	}
	return ms
}

// uuidV7 is a UUID version 7 of the Unix millisecond ms whose 12 bits after the time are seq
// (ids of one millisecond in seq's order), the rest random.
func uuidV7(ms int64, seq uint16) string {
	var u [16]byte
	rand.Read(u[8:])
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6], u[7] = 0x70|byte(seq>>8)&0x0f, byte(seq)
	u[8] = 0x80 | u[8]&0x3f
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
