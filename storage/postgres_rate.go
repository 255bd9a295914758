package storage

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// RateTimes are the rate limiter's times kept in PostgreSQL (ratelimit.Times), so that every
// node counts a subject's requests together: a read and a compare-and-swap a request.
type RateTimes struct{ p *Postgres }

// RateTimes is the store's shared rate limiter times.
func (p *Postgres) RateTimes() RateTimes { return RateTimes{p} }

// Load implements ratelimit.Times.
func (r RateTimes) Load(ctx context.Context, subject, family string) (time.Time, error) {
	var ns int64
	err := r.p.pool.QueryRow(ctx, `SELECT tat FROM timbra_rate WHERE subject = $1 AND family = $2`, subject, family).Scan(&ns)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, ns), nil
}

// Swap implements ratelimit.Times.
func (r RateTimes) Swap(ctx context.Context, subject, family string, old, next time.Time) (bool, error) {
	var err error
	var n int64
	if old.IsZero() {
		tag, e := r.p.pool.Exec(ctx, `INSERT INTO timbra_rate (subject, family, tat) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			subject, family, next.UnixNano())
		n, err = tag.RowsAffected(), e
	} else {
		tag, e := r.p.pool.Exec(ctx, `UPDATE timbra_rate SET tat = $4 WHERE subject = $1 AND family = $2 AND tat = $3`,
			subject, family, old.UnixNano(), next.UnixNano())
		n, err = tag.RowsAffected(), e
	}
	return n == 1, err
}

// Forget implements ratelimit.Times.
func (r RateTimes) Forget(ctx context.Context, t time.Time) error {
	_, err := r.p.pool.Exec(ctx, `DELETE FROM timbra_rate WHERE tat < $1`, t.UnixNano())
	return err
}
