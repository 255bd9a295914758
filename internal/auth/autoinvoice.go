package auth

import "github.com/timbra-mx/timbra/internal/apierr"

// MsgOnlyOwnerAutoInvoice is the 403 of an Auto CFDI configuration change asked by anybody but
// the owner (spec 3 §4.6).
const MsgOnlyOwnerAutoInvoice = "No tienes permiso para administrar la configuración de Auto CFDI."

// ManageAutoInvoice lets only the owner change the Auto CFDI settings and portal name.
func ManageAutoInvoice(c Caller) error {
	if c.IsOwner {
		return nil
	}
	return apierr.Forbidden(MsgOnlyOwnerAutoInvoice)
}
