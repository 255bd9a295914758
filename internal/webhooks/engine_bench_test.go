package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// BenchmarkEngineDrain: the engine drains b.N deliveries of one webhook to a sender that
// answers at once: the engine's own cost (outbox reads, dispatch, signing, recording), no
// network. The preload is not timed.
func BenchmarkEngineDrain(b *testing.B) {
	rig := newStoppedRig(b, nil)
	rig.hook("a", "https://a.example/ok")
	now := time.Now().UTC()
	err := rig.svc.Store.Update(context.Background(), func(tx storage.Tx) error {
		for range b.N {
			e, err := newEvent("a", "invoice.stamped", "inv", nil, false, now)
			if err != nil {
				return err
			}
			if err := rig.svc.emitIn(tx, e, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	rig.start()
	for {
		empty := false
		rig.svc.Store.View(context.Background(), func(tx storage.Tx) error { empty = tx.Outbox().Empty(); return nil })
		if empty {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
