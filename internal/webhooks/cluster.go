package webhooks

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// Several server nodes on one database (storage.Shared) share the outbox by destination: a node
// sends a destination's deliveries only while it holds that destination's lease, so one node at a
// time sends to a webhook and PerDestination holds across the nodes. A node asks for the
// destinations it finds with work, takes free or expired leases up to its share (the
// destinations with work, divided by the nodes up), renews those it uses and gives back those it
// no longer does. A listen session's destination goes to the node the session is connected to,
// whoever held it. When a node dies its leases expire after LeaseTTL and the others take its
// destinations: what it sent and had not recorded is sent again (at least once, as after a
// crash). PerTenant and InFlight bound each node.
//
// The nodes tell each other what changed (Shared.Notify): new deliveries of a tenant ("wake"),
// a changed webhook ("hook"), a destination taken for a listen session ("take").

// Cluster timings.
const (
	// LeaseTTL is how long a destination's lease lasts unless renewed.
	LeaseTTL = 15 * time.Second
	// leaseTick is how often a node renews its leases, says it is up and takes what it asked.
	leaseTick = time.Second
	// leaseMargin: a lease this close to its end starts no attempt (the clocks of the nodes
	// differ a little, and the renewal may be late).
	leaseMargin = 2 * time.Second
	// rescanEvery is how often a node looks at every destination with work (a node that died
	// leaves work no wake announces).
	rescanEvery = 5 * time.Second
	// askAgain is how long a node waits before asking again for a destination another node
	// holds (that node gives it back when it stops, or has nothing more for it).
	askAgain = 2 * time.Second
)

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// cluster is the engine's part of several nodes; nil on a database of one node.
type cluster struct {
	e      *Engine
	shared storage.Shared
	node   string
	kickCh chan struct{}

	mu      sync.Mutex
	held    map[destKey]time.Time // leases this node holds, until when
	wanted  map[destKey]time.Time // destinations this node found with work, when last
	elsewhr map[destKey]time.Time // leases another node holds, until when (not asked before)
	notes   chan string           // notifications to send, in order
	// sessionsRenewed is when this node last renewed its listen sessions' leases (step only).
	sessionsRenewed time.Time
}

func newCluster(e *Engine, shared storage.Shared, node string) *cluster {
	return &cluster{e: e, shared: shared, node: node, kickCh: make(chan struct{}, 1),
		held: map[destKey]time.Time{}, wanted: map[destKey]time.Time{}, elsewhr: map[destKey]time.Time{},
		notes: make(chan string, 1024)}
}

func leaseName(k destKey) string { return "d/" + k.tenant + "/" + k.webhook }

// sessionLease names the lease of a listen session's node.
func sessionLease(tenant, listenerID string) string { return "l/" + tenant + "/" + listenerID }

// connectedElsewhere tells whether a listener's session is open on another node, and its types.
func (c *cluster) connectedElsewhere(tx storage.Tx, tenant, listenerID string) ([]string, bool) {
	l, ok, err := tx.Leases().Get(sessionLease(tenant, listenerID))
	if err != nil || !ok || l.Node == c.node || !l.Until.After(c.e.Svc.Now().UTC()) {
		return nil, false
	}
	if l.Note == "" {
		return nil, true
	}
	return strings.Split(l.Note, ","), true
}

// sessionChanged records at once that a listen session opened here (its lease, and its
// destination asked for) or closed.
func (c *cluster) sessionChanged(tenant, listenerID string) {
	events, open := c.e.Svc.Listeners.Connected(tenant, listenerID)
	now := c.e.Svc.Now().UTC()
	k := destKey{tenant, listenerID}
	until := now.Add(LeaseTTL)
	err := c.e.Svc.Store.Batch(context.Background(), func(tx storage.Tx) error {
		name := sessionLease(tenant, listenerID)
		if open {
			// the session and its destination are this node's from now on
			if err := tx.Leases().Put(name, storage.Lease{Node: c.node, Until: until, Note: strings.Join(events, ",")}); err != nil {
				return err
			}
			return tx.Leases().Put(leaseName(k), storage.Lease{Node: c.node, Until: until})
		}
		l, ok, err := tx.Leases().Get(name)
		if err != nil || !ok || l.Node != c.node {
			return err
		}
		return tx.Leases().Delete(name)
	})
	if err != nil {
		c.e.Log.Error("cluster: record a listen session", "err", err)
		return
	}
	if open {
		c.mu.Lock()
		c.held[k], c.wanted[k] = until, now
		delete(c.elsewhr, k)
		c.mu.Unlock()
		c.notify("take " + tenant + " " + listenerID + " " + c.node)
		c.e.gained(k)
	}
}

// openElsewhere tells whether a listener's session is open on another node (not on this one).
func (c *cluster) openElsewhere(tenant, listenerID string) bool {
	if c.isLocal(destKey{tenant, listenerID}) {
		return false
	}
	open := false
	err := c.e.Svc.Store.View(context.Background(), func(tx storage.Tx) error {
		_, open = c.connectedElsewhere(tx, tenant, listenerID)
		return nil
	})
	return err == nil && open
}

// owns tells whether this node may start an attempt to k now.
func (c *cluster) owns(k destKey, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.held[k]
	return ok && until.Sub(now) > leaseMargin
}

// isLocal tells whether k is a listen session connected to this node.
func (c *cluster) isLocal(k destKey) bool {
	if c.e.Svc.Listeners == nil {
		return false
	}
	_, ok := c.e.Svc.Listeners.Connected(k.tenant, k.webhook)
	return ok
}

// want notes that k has work; a destination not held is asked for at once.
func (c *cluster) want(k destKey, now time.Time) {
	c.mu.Lock()
	c.wanted[k] = now
	_, held := c.held[k]
	other, elsewhere := c.elsewhr[k]
	c.mu.Unlock()
	if !held && (!elsewhere || !other.After(now) || c.isLocal(k)) {
		c.kick()
	}
}

func (c *cluster) kick() {
	select {
	case c.kickCh <- struct{}{}:
	default:
	}
}

// notify sends a notification to every node without waiting for it (a full queue drops it: the
// nodes' rescans find the work anyway).
func (c *cluster) notify(note string) {
	select {
	case c.notes <- note:
	default:
	}
}

// run keeps the leases and relays the notifications until ctx ends, then gives the leases back.
func (c *cluster) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { c.shared.Listen(ctx, c.heard) })
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-c.notes:
				if err := c.shared.Notify(ctx, n); err != nil && ctx.Err() == nil {
					c.e.Log.Warn("cluster: notify the other nodes", "err", err)
				}
			}
		}
	})
	tick := time.NewTicker(leaseTick)
	defer tick.Stop()
	for ctx.Err() == nil {
		if err := c.step(); err != nil && ctx.Err() == nil {
			c.e.Log.Error("cluster: leases", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-c.kickCh:
			// a burst of asks shares one write
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	wg.Wait()
}

// heard handles a notification of any node (this one's too).
func (c *cluster) heard(note string) {
	verb, rest, _ := strings.Cut(note, " ")
	switch verb {
	case "": // the connection was lost: anything may have changed
		c.e.Wake()
	case "wake":
		c.e.WakeTenant(rest)
	case "hook":
		if tenant, webhook, ok := strings.Cut(rest, " "); ok {
			c.e.HookChanged(tenant, webhook)
		}
	case "take":
		parts := strings.Fields(rest)
		if len(parts) == 3 && parts[2] != c.node {
			k := destKey{parts[0], parts[1]}
			c.mu.Lock()
			_, held := c.held[k]
			delete(c.held, k)
			c.elsewhr[k] = c.e.Svc.Now().UTC().Add(askAgain)
			c.mu.Unlock()
			if held {
				c.e.lost(k)
			}
		}
	}
}

// step says this node is up, renews or gives back its leases and takes those asked for, in one
// transaction.
func (c *cluster) step() error {
	now := c.e.Svc.Now().UTC()
	c.mu.Lock()
	held := make(map[destKey]time.Time, len(c.held))
	for k, v := range c.held {
		held[k] = v
	}
	var candidates []destKey                  // wanted, not held
	elsewhere := map[destKey]bool{}           // of those, held by another node as last seen
	keep := make(map[destKey]bool, len(held)) // held and found with work lately
	for k, at := range c.wanted {
		if now.Sub(at) > LeaseTTL {
			delete(c.wanted, k)
			continue
		}
		if _, ok := held[k]; ok {
			keep[k] = true
			continue
		}
		candidates = append(candidates, k)
		if until, ok := c.elsewhr[k]; ok && until.After(now) {
			elsewhere[k] = true
		}
	}
	c.mu.Unlock()
	// kept also: held with attempts or outcomes outstanding; asked: the candidates free as far
	// as this node knows, or whose listen session is here
	for k := range held {
		keep[k] = keep[k] || c.e.busy(k)
	}
	var asked []destKey
	local := map[destKey]bool{}
	for _, k := range candidates {
		if local[k] = c.isLocal(k); local[k] || !elsewhere[k] {
			asked = append(asked, k)
		}
	}
	until := now.Add(LeaseTTL)
	var taken, lost, forced []destKey
	others := map[destKey]time.Time{}
	type session struct {
		tenant, listener string
		events           []string
	}
	var sessions []session
	if c.e.Svc.Listeners != nil && now.Sub(c.sessionsRenewed) >= LeaseTTL/3 { // a new session's lease is written at once
		c.sessionsRenewed = now
		c.e.Svc.Listeners.Each(func(tenant, listenerID string, events []string) {
			sessions = append(sessions, session{tenant, listenerID, events})
		})
	}
	renewed := map[destKey]bool{}
	err := c.e.Svc.Store.Batch(context.Background(), func(tx storage.Tx) error {
		taken, lost, forced, others = taken[:0], lost[:0], forced[:0], map[destKey]time.Time{}
		clear(renewed)
		for _, s := range sessions {
			if err := tx.Leases().Put(sessionLease(s.tenant, s.listener), storage.Lease{Node: c.node, Until: until, Note: strings.Join(s.events, ",")}); err != nil {
				return err
			}
		}
		nodes := tx.Nodes()
		if err := nodes.Seen(c.node, now); err != nil {
			return err
		}
		live, err := nodes.Live(now.Add(-LeaseTTL), now.Add(-24*time.Hour))
		if err != nil {
			return err
		}
		leases := tx.Leases()
		mine := 0
		for k, kept := range keep {
			if kept && held[k].Sub(now) > LeaseTTL/2 {
				mine++ // renewed when half its time is gone: a write a lease every few seconds
				continue
			}
			l, ok, err := leases.Get(leaseName(k))
			if err != nil {
				return err
			}
			switch {
			case ok && l.Node != c.node && l.Until.After(now):
				lost = append(lost, k) // taken over (a listen session connected elsewhere)
				others[k] = l.Until
			case kept:
				if err := leases.Put(leaseName(k), storage.Lease{Node: c.node, Until: until}); err != nil {
					return err
				}
				renewed[k] = true
				mine++
			default:
				if ok && l.Node == c.node {
					if err := leases.Delete(leaseName(k)); err != nil {
						return err
					}
				}
				lost = append(lost, k)
			}
		}
		share := (len(asked) + len(keep) + max(len(live), 1) - 1) / max(len(live), 1)
		for _, k := range asked {
			l, ok, err := leases.Get(leaseName(k))
			if err != nil {
				return err
			}
			free := !ok || !l.Until.After(now) || l.Node == c.node
			if !local[k] {
				// a listen session open on another node: that node sends to it
				sl, open, err := leases.Get(sessionLease(k.tenant, k.webhook))
				if err != nil {
					return err
				}
				if open && sl.Node != c.node && sl.Until.After(now) {
					others[k] = sl.Until
					continue
				}
			}
			switch {
			case local[k]: // its listen session is here
				if ok && l.Node != c.node && l.Until.After(now) {
					forced = append(forced, k)
				}
			case !free:
				others[k] = l.Until
				continue
			case mine >= share:
				continue
			}
			if err := leases.Put(leaseName(k), storage.Lease{Node: c.node, Until: until}); err != nil {
				return err
			}
			taken = append(taken, k)
			mine++
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	for _, k := range lost {
		delete(c.held, k)
	}
	for k := range renewed {
		c.held[k] = until
	}
	for _, k := range taken {
		c.held[k] = until
		delete(c.elsewhr, k)
	}
	for k, u := range others {
		c.elsewhr[k] = minTime(u, now.Add(askAgain)) // asked again soon: the holder may give it back
	}
	for k, u := range c.elsewhr {
		if !u.After(now) {
			delete(c.elsewhr, k)
		}
	}
	c.mu.Unlock()
	if len(taken)+len(lost)+len(forced) > 0 {
		c.e.Log.Debug("cluster: leases", "node", c.node, "taken", len(taken), "lost", len(lost), "forced", len(forced), "held", len(keep)-len(lost)+len(taken))
	}
	for _, k := range forced {
		c.notify("take " + k.tenant + " " + k.webhook + " " + c.node)
	}
	for _, k := range lost {
		c.e.lost(k)
	}
	for _, k := range taken {
		c.e.gained(k)
	}
	return nil
}

// release gives back every lease this node holds and says it is gone (it is stopping): the
// others take its destinations at once instead of after LeaseTTL.
func (c *cluster) release() error {
	c.mu.Lock()
	held := c.held
	c.held = map[destKey]time.Time{}
	c.mu.Unlock()
	c.e.Log.Debug("cluster: give the leases back", "node", c.node, "leases", len(held))
	return c.e.Svc.Store.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.Nodes().Gone(c.node); err != nil { // its share goes to the others at once
			return err
		}
		leases := tx.Leases()
		for k := range held {
			l, ok, err := leases.Get(leaseName(k))
			if err != nil {
				return err
			}
			if ok && l.Node == c.node {
				if err := leases.Delete(leaseName(k)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
