package accounts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/storage"
)

// Credits transfer (POST /api/v4/stamps). The spec shows no operation that assigns or withdraws
// stamps (spec 2 §4.3); timbra answers the one the official client sends: transferStamps and
// withdrawStamps both post {fromPersonId, toPersonId, amount, comments, creditType}, and a
// withdrawal is a transfer with the two people swapped. Rules (timbra's design):
//   - only the owner moves credits, between any two people of the tenant (403 otherwise);
//   - the amount is a whole number of credits above 0 and at most what the source has;
//   - creditType defaults to 1 (stamps); 1, 2 and 3 are the credit types of spec 1 §1;
//   - comments are checked (at most 100 characters, as the client documents) and not kept:
//     timbra keeps no transaction log yet;
//   - both balances change in one transaction: credits are never lost or created.

// Texts of the credits transfer.
const (
	MsgTransferFromRequired    = "'From Person Id' no debería estar vacío."
	MsgTransferToRequired      = "'To Person Id' no debería estar vacío."
	MsgTransferSamePerson      = "La persona destino debe ser distinta de la persona origen."
	MsgTransferAmountPositive  = "'Amount' debe ser mayor que 0."
	MsgTransferAmountWhole     = "'Amount' debe ser un número entero: los créditos no se dividen."
	MsgTransferInsufficientFmt = "La persona origen no tiene créditos suficientes de tipo %d: disponible %d, solicitado %s."
	MsgTransferCreditTypeFmt   = "'Credit Type' tiene un rango de valores que no incluye '%d'. Usa 1 (timbres), 2 (validaciones) o 3 (tickets)."
)

// MaxTransferComments is the longest comment of a transfer, in characters.
const MaxTransferComments = 100

// checkTransfer returns the credit type a transfer moves, or its validation failures (all of
// them, in one answer).
func checkTransfer(in api.StampTransfer) (int, []api.Failure) {
	var fs []api.Failure
	if in.FromPersonID == "" {
		fs = append(fs, apierr.Field("FromPersonId", MsgTransferFromRequired, in.FromPersonID, "NotEmptyValidator", nil))
	}
	if in.ToPersonID == "" {
		fs = append(fs, apierr.Field("ToPersonId", MsgTransferToRequired, in.ToPersonID, "NotEmptyValidator", nil))
	} else if in.ToPersonID == in.FromPersonID {
		fs = append(fs, apierr.Field("ToPersonId", MsgTransferSamePerson, in.ToPersonID, "", nil))
	}
	switch {
	case in.Amount <= 0:
		fs = append(fs, apierr.Field("Amount", MsgTransferAmountPositive, in.Amount, "GreaterThanValidator", nil))
	case in.Amount != math.Trunc(in.Amount):
		fs = append(fs, apierr.Field("Amount", MsgTransferAmountWhole, in.Amount, "", nil))
	}
	creditType := api.CreditStamps
	if in.CreditType != nil {
		creditType = *in.CreditType
		if creditType < api.CreditStamps || creditType > api.CreditTickets {
			fs = append(fs, apierr.Field("CreditType", fmt.Sprintf(MsgTransferCreditTypeFmt, creditType), creditType, "EnumValidator", nil))
		}
	}
	if in.Comments != nil {
		if f, long := apierr.TooLong("Comments", *in.Comments, MaxTransferComments, *in.Comments); long {
			fs = append(fs, f)
		}
	}
	return creditType, fs
}

// TransferCredits moves credits of one type from one person of the caller's tenant to another.
// Checks run in this order: the owner rule (403), the body (400), the people (404, the source
// first), the source's balance (400 on Amount).
func (s *Service) TransferCredits(ctx context.Context, c auth.Caller, in api.StampTransfer) error {
	if err := auth.TransferCredits(c); err != nil {
		return err
	}
	creditType, fs := checkTransfer(in)
	if len(fs) > 0 {
		return apierr.Invalid(fs...)
	}
	now := s.Now().UTC()
	// Batch: concurrent transfers share a commit. fn reads and writes only inside tx, so running
	// it again (as Batch may) transfers once.
	return s.Store.Batch(ctx, func(tx storage.Tx) error {
		ppl := tx.People(c.TenantID)
		from, err := ppl.Get(in.FromPersonID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(in.FromPersonID)
		} else if err != nil {
			return err
		}
		to, err := ppl.Get(in.ToPersonID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(in.ToPersonID)
		} else if err != nil {
			return err
		}
		if have := people.Available(from, creditType); in.Amount > float64(have) {
			return apierr.Invalid(apierr.Field("Amount",
				fmt.Sprintf(MsgTransferInsufficientFmt, creditType, have, strconv.FormatFloat(in.Amount, 'f', -1, 64)), in.Amount, "InsufficientBalance", nil))
		}
		n := int64(in.Amount)
		if err := people.AddCredits(&from, creditType, -n, now); err != nil {
			return err
		}
		if err := people.AddCredits(&to, creditType, n, now); err != nil {
			return err
		}
		if err := ppl.Put(from); err != nil {
			return err
		}
		if err := ppl.Put(to); err != nil {
			return err
		}
		t := storage.StampTransaction{Amount: n, TransactionType: people.TxTransfer, CreditType: creditType}
		if in.Comments != nil {
			t.Comments = *in.Comments
		}
		return people.RecordCredits(tx, c.TenantID, t, &from, &to, now)
	})
}
