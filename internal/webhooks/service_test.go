package webhooks

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestConcurrentChangeIs409(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, _ := secrets.New(bytes.Repeat([]byte{1}, secrets.KeySize))
	s := New(Config{Store: db, Keys: keys, Now: time.Now, LockWait: 50 * time.Millisecond,
		CheckURL: func(string) string { return "" }, NewSecret: func() string { return "whsec_x" }})
	c := auth.Caller{TenantID: "t", PersonID: "p", IsOwner: true}
	url := "https://example.com/x"
	in := api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}}
	ctx := context.Background()
	unlock, err := s.lock(ctx, c.TenantID) // another change in progress
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(ctx, c, in)
	if e, ok := apierr.As(err); !ok || e.Status != 409 || e.Details != MsgConcurrentChange {
		t.Fatalf("create during another change: %v", err)
	}
	if _, err := s.Create(ctx, auth.Caller{TenantID: "other", PersonID: "q"}, in); err != nil {
		t.Fatalf("another tenant must not wait: %v", err)
	}
	unlock()
	if _, err := s.Create(ctx, c, in); err != nil {
		t.Fatalf("create after the change: %v", err)
	}
}
