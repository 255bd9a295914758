package auth

import "github.com/timbra-mx/timbra/internal/apierr"

// MsgOnlyOwnerOrIssuerGlobal is the 403 of a global invoice of tickets asked by anybody but the
// owner or the issuer (timbra's rule; the spec shows no tickets endpoint).
const MsgOnlyOwnerOrIssuerGlobal = "Solo el propietario de la cuenta o el emisor de los tickets pueden hacer su factura global."

// SeesTicket is who sees and acts on a ticket (cancel it, invoice it for a customer): the owner,
// its issuer and the person who recorded it. To anybody else it does not exist (404).
func SeesTicket(c Caller, issuerID, recordedByID string) bool {
	return c.IsOwner || c.PersonID == issuerID || c.PersonID == recordedByID
}

// GlobalizeTickets lets the owner and the issuer make a global invoice of the issuer's tickets.
func GlobalizeTickets(c Caller, issuerID string) error {
	if c.IsOwner || c.PersonID == issuerID {
		return nil
	}
	return apierr.Forbidden(MsgOnlyOwnerOrIssuerGlobal)
}
