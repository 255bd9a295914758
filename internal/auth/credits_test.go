package auth

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/internal/apierr"
)

func TestTransferCredits(t *testing.T) {
	if err := TransferCredits(Caller{PersonID: "o", IsOwner: true}); err != nil {
		t.Fatalf("owner: %v", err)
	}
	e, ok := apierr.As(TransferCredits(Caller{PersonID: "p"}))
	if !ok || e.Status != http.StatusForbidden || e.Details != MsgOnlyOwnerTransferCredits {
		t.Fatalf("non-owner: %+v", e)
	}
}
