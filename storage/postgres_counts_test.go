package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// countingTx is a transaction that counts the statements sent through it.
type countingTx struct {
	pgx.Tx
	n *int
}

func (t countingTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	*t.n++
	return t.Tx.Exec(ctx, sql, args...)
}

func (t countingTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	*t.n++
	return t.Tx.Query(ctx, sql, args...)
}

func (t countingTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	*t.n++
	return t.Tx.QueryRow(ctx, sql, args...)
}

// TestPostgresWriteReadsItsCountsAtOnce: a new invoice moves 36 kept counts (7 of its indexed
// values, 21 pairs of them, 8 of its day) and a status change 16; each set is read in one
// statement, not one a count, so the write holds the writer lock for a few round trips, not
// dozens. That the counts stay right the conformance suite checks.
func TestPostgresWriteReadsItsCountsAtOnce(t *testing.T) {
	ctx := context.Background()
	p := openTestPostgres(t)
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	invoice := func(i int, status string) Invoice {
		ms := base.Add(time.Duration(i) * time.Minute).UnixMilli()
		id := fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, i)
		issuer, recipient := "p-issuer", fmt.Sprintf("p-recipient-%d", i)
		return Invoice{ID: id, UUID: fmt.Sprintf("%08X-0000-4000-8000-000000000000", i), TypeCode: "I", IssuerTin: "EKU9003173C9",
			RecipientTin: fmt.Sprintf("AAA0101%02dAA1", i), IssuerPersonID: &issuer, RecipientPersonID: &recipient,
			Status: status, Series: "F", Date: "2026-11-01T04:00:00", View: []byte(`{}`), CreatedAt: base, UpdatedAt: base}
	}
	put := func(v Invoice) int {
		n := 0
		err := p.write(ctx, func(kv kvTx) error {
			pk := kv.(*pgKV)
			pk.tx = countingTx{Tx: pk.tx, n: &n}
			return newTx(kv).Invoices("t1").Put(v)
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	put(invoice(0, "Vigente")) // the buckets made and known
	// read one at a time, the counts made these 41 and 20 statements; now the record, its
	// summary, the tenant's total, the three sets of counts and the writes are 8 and 7
	if n := put(invoice(1, "Vigente")); n > 10 {
		t.Errorf("a new invoice sent %d statements, want at most 10", n)
	}
	if n := put(invoice(1, "Cancelado")); n > 10 {
		t.Errorf("a status change sent %d statements, want at most 10", n)
	}
}
