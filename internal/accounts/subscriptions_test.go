package accounts

import (
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

func TestSubscriptionOf(t *testing.T) {
	if s := SubscriptionOf(storage.Tenant{}, EnvTest); !s.AutoCfdi || s.DownloadSeats != 1 {
		t.Errorf("test default = %+v", s)
	}
	if s := SubscriptionOf(storage.Tenant{}, EnvProduction); s.AutoCfdi || s.DownloadSeats != 0 {
		t.Errorf("production default = %+v", s)
	}
	set := &storage.Subscription{DownloadSeats: 4, UpdatedAt: time.Unix(1, 0)}
	if s := SubscriptionOf(storage.Tenant{Subscription: set}, EnvTest); s.AutoCfdi || s.DownloadSeats != 4 {
		t.Errorf("set = %+v", s)
	}
}
