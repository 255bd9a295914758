package auth

import "github.com/timbra-mx/timbra/internal/apierr"

// MsgOnlyOwnerTransferCredits is the 403 of a credits transfer asked by anybody but the owner.
// The spec names no text for it (spec 2 §4.3: "operations that assign or withdraw stamps: not
// shown"); it follows the wording of the other owner rules.
const MsgOnlyOwnerTransferCredits = "Solo el propietario de la cuenta puede transferir timbres y créditos entre las personas de la cuenta."

// TransferCredits allows only the owner to move credits between the people of the tenant.
func TransferCredits(c Caller) error {
	if c.IsOwner {
		return nil
	}
	return apierr.Forbidden(MsgOnlyOwnerTransferCredits)
}
