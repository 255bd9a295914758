package api

// InvoicePaymentInput is complement.payment (Pagos 2.0) of a payment invoice (typeCode P), as
// the official clients send it (their PaymentComplement): one payment received, the invoices it
// pays and their taxes. An array of them (several payments in one receipt) is accepted too.
type InvoicePaymentInput struct {
	PaymentDate       string                    `json:"paymentDate"`
	PaymentFormCode   string                    `json:"paymentFormCode"`
	CurrencyCode      string                    `json:"currencyCode"`
	ExchangeRate      Amount                    `json:"exchangeRate"`
	Amount            Amount                    `json:"amount"`
	OperationNumber   string                    `json:"operationNumber"`
	SourceBankTin     string                    `json:"sourceBankTin"`
	SourceBankAccount string                    `json:"sourceBankAccount"`
	TargetBankTin     string                    `json:"targetBankTin"`
	TargetBankAccount string                    `json:"targetBankAccount"`
	PaidInvoices      []InvoicePaidInvoiceInput `json:"paidInvoices"`
}

// InvoicePaidInvoiceInput is an invoice the payment pays (a DoctoRelacionado). Number may come
// as a number or a string; subTotal is read but not used (the taxes' base is the paid part).
type InvoicePaidInvoiceInput struct {
	UUID             string           `json:"uuid"`
	Series           string           `json:"series"`
	Number           Amount           `json:"number"`
	PaymentAmount    Amount           `json:"paymentAmount"`
	CurrencyCode     string           `json:"currencyCode"`
	PartialityNumber Amount           `json:"partialityNumber"`
	SubTotal         Amount           `json:"subTotal"`
	PreviousBalance  Amount           `json:"previousBalance"`
	RemainingBalance Amount           `json:"remainingBalance"`
	TaxObjectCode    string           `json:"taxObjectCode"`
	Equivalence      Amount           `json:"equivalence"`
	PaidInvoiceTaxes []InvoiceItemTax `json:"paidInvoiceTaxes"`
}
