package webhooks

// Texts of spec 3 §4.4 and §4.5 and spec 1 §5. `<cli>` of the spec is `timbra`.
const (
	MsgNoPermission        = "No tienes permiso para administrar webhooks."
	MsgUnknownEventType    = "El tipo de evento '%s' no existe."
	MsgDescriptionTooLong  = "La descripción no puede tener más de 256 caracteres."
	MsgNoEventTypes        = "Indica al menos un tipo de evento o '*' para recibirlos todos."
	MsgWildcardAlone       = "El comodín '*' no se combina con otros tipos de evento."
	MsgTooManyPeople       = "Un webhook filtra como máximo 100 personas."
	MsgPersonNotValid      = "La persona especificada no es válida o no pertenece a tu organización."
	MsgMaxWebhooks         = "Se alcanzó el máximo de 16 webhooks."
	MsgConcurrentChange    = "Otro cambio a los webhooks está en curso; intenta de nuevo."
	MsgIDsMismatch         = "IDs mismatches"
	MsgListenerNotEditable = "Una escucha de CLI no se edita ni se prueba; usa timbra listen y timbra trigger."
	MsgDisabledTest        = "El webhook está deshabilitado: habilítalo antes de probarlo."
	MsgDisabledResend      = "El webhook está deshabilitado: habilítalo antes de reenviarle eventos."
	MsgListenerNotOpen     = "La escucha de CLI no está conectada; ejecuta timbra listen."
	MsgSessionNotOpen      = "La sesión '%s' de timbra listen no está conectada; ejecuta timbra listen --session %s."
	MsgSessionAmbiguous    = "Tienes varias sesiones de timbra listen abiertas (%s): nombra una (timbra events resend --session NOMBRE)."
	MsgSinceUnknown        = "El evento '%s' no existe o tiene más de 30 días: da un instante (RFC 3339) o el id de un evento reciente."
	MsgSessionName         = "El nombre de sesión '%s' no es válido: de 1 a 40 letras, números, '.', '_' o '-'."
	MsgTooManySessions     = "Ya tienes %d sesiones de timbra listen: usa el nombre de una de ellas o borra una que no uses (timbra webhooks delete)."
	MsgTriggerProduction   = "timbra trigger no está disponible en producción; usa el ambiente de pruebas."
	MsgWebhookIDEmpty      = "'Webhook Id' no debería estar vacío."
	MsgRelatedIDEmpty      = "'Related Object Id' no debería estar vacío."
	MsgStatusInvalid       = "'Status' debe ser enabled o disabled."
	MsgFromAfterTo         = "'from' no puede ser posterior a 'to'."
	MsgRangeTooLong        = "El rango de fechas no puede exceder 30 días."
)

// Limits of spec 1 §8.
const (
	MaxURLWebhooks      = 16
	MaxPeoplePerWebhook = 100
	MaxDescription      = 256
	MaxRelatedID        = 36
	PageSizeMax         = 50
	PageSizeDefault     = 10
)

// Webhook kinds, statuses and disabled reasons.
const (
	KindURL         = "url"
	KindListener    = "cliListener"
	StatusEnabled   = "enabled"
	StatusDisabled  = "disabled"
	ReasonManual    = "manual"
	ReasonGone      = "gone"
	ReasonFailing   = "failingTooLong"
	DeliveryAuto    = "automatic"
	DeliveryManual  = "manual"
	DeliveryTest    = "test"
	DeliveryPending = "pending"
	DeliveryOK      = "succeeded"
	DeliveryFailed  = "failed"
)
