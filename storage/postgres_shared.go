package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is Shared: notifications through LISTEN/NOTIFY on a channel of its schema, leads
// through session advisory locks, each on a connection of its own.

// sharedRetry is how long a lost LISTEN connection or a lead not taken waits before trying again.
const sharedRetry = 2 * time.Second

func (p *Postgres) channel() string { return "timbra_" + p.schema }

// Notify implements Shared.
func (p *Postgres) Notify(ctx context.Context, payload string) error {
	_, err := p.pool.Exec(ctx, "SELECT pg_notify($1, $2)", p.channel(), payload)
	return err
}

// Listen implements Shared.
func (p *Postgres) Listen(ctx context.Context, fn func(payload string)) {
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			fn("") // anything may have come while not listening
		}
		err := p.listenOnce(ctx, fn)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(sharedRetry):
			}
		}
	}
}

func (p *Postgres) listenOnce(ctx context.Context, fn func(payload string)) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	c := conn.Hijack() // a listening connection is not given back to the pool
	defer c.Close(context.WithoutCancel(ctx))
	if _, err := c.Exec(ctx, "LISTEN "+pgx.Identifier{p.channel()}.Sanitize()); err != nil {
		return err
	}
	for {
		n, err := c.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}

// Lead implements Shared.
func (p *Postgres) Lead(ctx context.Context, name string, run func(context.Context)) {
	key := lockKey("timbra lead " + name + " " + p.schema)
	for ctx.Err() == nil {
		p.leadOnce(ctx, key, run)
		select {
		case <-ctx.Done():
		case <-time.After(sharedRetry):
		}
	}
}

// leadOnce takes the lead if it is free and runs run until ctx ends or the connection that holds
// the lock is lost (then PostgreSQL has released the lock, and another node may take it).
func (p *Postgres) leadOnce(ctx context.Context, key int64, run func(context.Context)) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return
	}
	c := conn.Hijack() // the lock lives as long as this connection
	defer c.Close(context.WithoutCancel(ctx))
	var held bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&held); err != nil || !held {
		return
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(runCtx)
	}()
	tick := time.NewTicker(sharedRetry)
	defer tick.Stop()
	for {
		select {
		case <-done:
			stop()
			return
		case <-ctx.Done():
			stop()
			<-done
			return
		case <-tick.C:
			pctx, cancel := context.WithTimeout(ctx, sharedRetry)
			err := c.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				stop() // the lock may be gone with the connection: stop leading at once
				<-done
				return
			}
		}
	}
}
