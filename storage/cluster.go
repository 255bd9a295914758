package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Several server nodes on one database (PostgreSQL) share the work that must be done once:
// which node sends a webhook's deliveries is a lease (Leases), the nodes that are up say so
// (Nodes), and a backend shared by nodes tells them what another node changed (Shared). The
// rules (how long a lease lasts, who may take one) are the webhooks package's.

// Lease is which node holds a piece of work, and until when.
type Lease struct {
	Node  string
	Until time.Time
	// Note is what the holder tells the others with it (a listen session's event types).
	Note string
}

// Leases are the leases of the work the nodes share, by name.
type Leases interface {
	// Get is the lease of name; ok false when there is none.
	Get(name string) (l Lease, ok bool, err error)
	Put(name string, l Lease) error
	Delete(name string) error
}

// Nodes are the server nodes of the database, each with when it last said it was up.
type Nodes interface {
	Seen(node string, at time.Time) error
	// Gone forgets a node (it stopped).
	Gone(node string) error
	// Live names the nodes seen at or after since, and forgets those seen before forget.
	Live(since, forget time.Time) ([]string, error)
}

// Shared is what a backend that several server nodes share offers them; bbolt has one node and
// does not implement it.
type Shared interface {
	// Notify tells payload to every node's Listen, this node's too, once it returns.
	Notify(ctx context.Context, payload string) error
	// Listen calls fn with every payload notified, until ctx ends. After it lost its connection
	// it calls fn with "" once connected again (something may have been missed meanwhile).
	Listen(ctx context.Context, fn func(payload string))
	// Lead calls run while this node leads name (one node at a time among the database's);
	// run's context ends when the lead is lost or ctx ends. Lead returns when ctx ends.
	Lead(ctx context.Context, name string, run func(context.Context))
}

type kvLeases struct{ b kvBucket }

func (l kvLeases) Get(name string) (Lease, bool, error) {
	v := l.b.Get([]byte(name))
	if v == nil {
		return Lease{}, false, nil
	}
	if len(v) < 8 {
		return Lease{}, false, fmt.Errorf("storage: malformed lease %q", name)
	}
	node, note, _ := strings.Cut(string(v[8:]), "\x00")
	return Lease{Until: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), Node: node, Note: note}, true, nil
}

func (l kvLeases) Put(name string, v Lease) error {
	if name == "" || v.Node == "" || strings.IndexByte(v.Node, 0) >= 0 {
		return errors.New("storage: a lease needs a name and a node")
	}
	raw := binary.BigEndian.AppendUint64(nil, uint64(v.Until.UnixNano()))
	raw = append(raw, v.Node...)
	if v.Note != "" {
		raw = append(append(raw, 0), v.Note...)
	}
	return l.b.Put([]byte(name), raw)
}

func (l kvLeases) Delete(name string) error { return l.b.Delete([]byte(name)) }

type kvNodes struct{ b kvBucket }

func (n kvNodes) Seen(node string, at time.Time) error {
	return n.b.Put([]byte(node), binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano())))
}

func (n kvNodes) Gone(node string) error { return n.b.Delete([]byte(node)) }

func (n kvNodes) Live(since, forget time.Time) ([]string, error) {
	var live []string
	var gone [][]byte
	err := n.b.ForEach(func(k, v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("storage: malformed node %q", k)
		}
		at := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		switch {
		case !at.Before(since):
			live = append(live, string(k))
		case at.Before(forget):
			gone = append(gone, k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range gone {
		if err := n.b.Delete(k); err != nil {
			return nil, err
		}
	}
	return live, nil
}
