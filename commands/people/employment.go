package people

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// `timbra people employer` and `timbra people employee`: the employer and the employee data of a
// person (get, set, delete). set sends POST when the person has none and PUT otherwise, starting
// from the saved data, so that a flag changes one field and keeps the rest.

// employmentFlag is a flag of one field of a body: text or amount (a JSON number).
type employmentFlag[T any] struct {
	name, usage string
	amount      bool
	text        func(*T) **string
	number      func(*T) **api.Decimal
}

var employerFlags = []employmentFlag[api.EmployerInput]{
	{name: "registration", usage: "employer registration `NUMBER` (registro patronal; required)", text: func(x *api.EmployerInput) **string { return &x.EmployerRegistration }},
	{name: "origin-employer-tin", usage: "`RFC` of the original employer, when the payroll payment is outsourced", text: func(x *api.EmployerInput) **string { return &x.OriginEmployerTin }},
	{name: "fund-source", usage: "fund source `KEY` (c_OrigenRecurso: IP, IF or IM); members of the national fiscal coordination system only", text: func(x *api.EmployerInput) **string { return &x.SatFundSourceID }},
	{name: "own-resource-amount", usage: "own resource `AMOUNT`, 0 to 999999999999.999999; needs --fund-source", amount: true, number: func(x *api.EmployerInput) **api.Decimal { return &x.OwnResourceAmount }},
}

var employeeFlags = []employmentFlag[api.EmployeeInput]{
	{name: "employer", usage: "`ID` of the employer person (required)", text: func(x *api.EmployeeInput) **string { return &x.EmployerPersonID }},
	{name: "employee-number", usage: "employee `NUMBER` (required)", text: func(x *api.EmployeeInput) **string { return &x.EmployeeNumber }},
	{name: "social-security-number", usage: "social security `NUMBER` (NSS; required)", text: func(x *api.EmployeeInput) **string { return &x.SocialSecurityNumber }},
	{name: "start-date", usage: "start `DATE` of the labor relation, YYYY-MM-DD (required)", text: func(x *api.EmployeeInput) **string { return &x.LaborRelationStartDate }},
	{name: "contract-type", usage: "contract type `KEY` (c_TipoContrato, for example 01; required)", text: func(x *api.EmployeeInput) **string { return &x.SatContractTypeID }},
	{name: "regime-type", usage: "regime type `KEY` (c_TipoRegimen, for example 02; required)", text: func(x *api.EmployeeInput) **string { return &x.SatTaxRegimeTypeID }},
	{name: "workday-type", usage: "workday type `KEY` (c_TipoJornada, for example 01; required)", text: func(x *api.EmployeeInput) **string { return &x.SatWorkdayTypeID }},
	{name: "job-risk", usage: "job risk `KEY` (c_RiesgoPuesto, 1 to 5; required)", text: func(x *api.EmployeeInput) **string { return &x.SatJobRiskID }},
	{name: "payment-periodicity", usage: "payment periodicity `KEY` (c_PeriodicidadPago, for example 04; required)", text: func(x *api.EmployeeInput) **string { return &x.SatPaymentPeriodicityID }},
	{name: "payroll-state", usage: "state `KEY` where the work is done (c_Estado, for example JAL; required)", text: func(x *api.EmployeeInput) **string { return &x.SatPayrollStateID }},
	{name: "seniority", usage: "`DURATION` in ISO 8601, P<n>W or P<y>Y<m>M<d>D, for example P52W or P1Y2M15D (required)", text: func(x *api.EmployeeInput) **string { return &x.Seniority }},
	{name: "base-salary", usage: "base salary for contributions `AMOUNT` (SalarioBaseCotApor; required)", amount: true, number: func(x *api.EmployeeInput) **api.Decimal { return &x.BaseSalaryForContributions }},
	{name: "daily-salary", usage: "integrated daily salary `AMOUNT` (SalarioDiarioIntegrado; required)", amount: true, number: func(x *api.EmployeeInput) **api.Decimal { return &x.IntegratedDailySalary }},
	{name: "bank", usage: "bank `KEY` (c_Banco, for example 002)", text: func(x *api.EmployeeInput) **string { return &x.SatBankID }},
	{name: "bank-account", usage: "bank account or CLABE `NUMBER`", text: func(x *api.EmployeeInput) **string { return &x.BankAccount }},
	{name: "unionized", usage: "`Sí or No`: whether the employee is unionized (c_Sindicalizado)", text: func(x *api.EmployeeInput) **string { return &x.SatUnionizedStatusID }},
	{name: "position", usage: "job `TITLE`", text: func(x *api.EmployeeInput) **string { return &x.Position }},
	{name: "department", usage: "`DEPARTMENT` name", text: func(x *api.EmployeeInput) **string { return &x.Department }},
	{name: "subcontractor-rfc", usage: "`RFC` of the subcontracting taxpayer, when subcontracted", text: func(x *api.EmployeeInput) **string { return &x.SubcontractorRfc }},
	{name: "time-percentage", usage: "`PERCENT` of working time, when subcontracted", amount: true, number: func(x *api.EmployeeInput) **api.Decimal { return &x.TimePercentage }},
}

func cliFlags[T any](fs []employmentFlag[T]) []cli.Flag {
	out := make([]cli.Flag, 0, len(fs)+2)
	for _, f := range fs {
		out = append(out, &cli.StringFlag{Name: f.name, Usage: f.usage})
	}
	return out
}

// flagValues are the values of the flags of fs that were given, by flag name.
func flagValues[T any](c *cli.Context, fs []employmentFlag[T]) map[string]string {
	values := map[string]string{}
	for _, f := range fs {
		if c.IsSet(f.name) {
			values[f.name] = c.String(f.name)
		}
	}
	return values
}

// applyFlags sets the fields of the flags given (values, by flag name): an empty value clears
// an optional field.
func applyFlags[T any](c *cli.Context, fs []employmentFlag[T], values map[string]string, in *T) error {
	for _, f := range fs {
		v, ok := values[f.name]
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if !f.amount {
			*f.text(in) = &v
			continue
		}
		if v == "" {
			*f.number(in) = nil
			continue
		}
		if !isJSONNumber(v) {
			return cmdutil.UsageErrorf(c, "invalid value %q for --%s: give a number such as 1500 or 1500.50", v, f.name)
		}
		d := api.Decimal(v)
		*f.number(in) = &d
	}
	return nil
}

// isJSONNumber tells whether s is a number as JSON writes it (sent as it is, never rounded).
func isJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && string(n) == s
}

// readBodyFile reads a JSON body from path (- for stdin) onto in: the fields it has replace
// those in; fields the API answers but does not take (id, expanded records, dates) are ignored.
func readBodyFile(c *cli.Context, path string, stdin io.Reader, in any) error {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return fmt.Errorf("read --file: %w", err)
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return cmdutil.UsageErrorf(c, "--file %s is not a JSON object of the API's fields: %v", path, err)
	}
	return nil
}

func isNotFound(err error) bool {
	var e *api.Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

func amountText(d *api.Decimal) string {
	if d == nil {
		return ""
	}
	return string(*d)
}

// ---- employer

func newEmployerCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "employer",
		Usage: "Read, set and delete the employer data of a person (payroll issuers)",
		Description: "A person that issues payroll CFDIs needs employer data: its employer registration and,\n" +
			"for members of the national fiscal coordination system, the fund source and own resource\n" +
			"amount. Only the owner changes the owner's data; anybody of the tenant changes anybody else's.\n\n" +
			"Examples:\n" +
			"  timbra people employer get 3f2a0c1e-...\n" +
			"  timbra people employer set 3f2a0c1e-... --registration B5510768108\n" +
			"  timbra people employer delete 3f2a0c1e-... --yes",
		Subcommands: []*cli.Command{
			newEmployerGetCmd(f, nil),
			newEmployerSetCmd(f, nil),
			newEmployerDeleteCmd(f, nil),
		},
	}
}

func employerFields(p *cmdutil.Printer, e api.Employer) []cmdutil.Field {
	return []cmdutil.Field{
		{Label: "ID", Value: e.ID},
		{Label: "Person", Value: e.PersonID},
		{Label: "Employer registration", Value: e.EmployerRegistration},
		{Label: "Origin employer TIN", Value: api.Deref(e.OriginEmployerTin)},
		{Label: "Fund source", Value: cmdutil.CatalogText(e.SatFundSourceID, e.SatFundSource)},
		{Label: "Own resource amount", Value: amountText(e.OwnResourceAmount)},
		{Label: "Created", Value: p.Time(e.CreatedAt)},
		{Label: "Updated", Value: p.Time(e.UpdatedAt)},
	}
}

func employerInputOf(e api.Employer) api.EmployerInput {
	return api.EmployerInput{
		PersonID: &e.PersonID, EmployerRegistration: &e.EmployerRegistration, OriginEmployerTin: e.OriginEmployerTin,
		SatFundSourceID: e.SatFundSourceID, OwnResourceAmount: e.OwnResourceAmount,
	}
}

// employmentSetOptions are the options of `employer set` and `employee set`.
type employmentSetOptions struct {
	f      *cmdutil.Factory
	ID     string
	File   string
	Fields map[string]string // field flag name → value, only the flags given
}

func newEmployerSetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentSetOptions]) *cli.Command {
	o := &employmentSetOptions{f: f}
	run = cmdutil.OrRun(run, employerSetRun)
	return &cli.Command{
		Name:      "set",
		Usage:     "Create or change the employer data of a person",
		UsageText: "timbra people employer set PERSON_ID [--registration NUMBER] [--fund-source KEY --own-resource-amount AMOUNT] [--file data.json] [-o json]",
		ArgsUsage: "PERSON_ID",
		Description: "Creates the person's employer data when it has none, or changes it: the saved data, then\n" +
			"the fields of --file (a JSON object as the API takes it, or as `get -o json` prints it), then\n" +
			"the flags. An empty flag value clears an optional field. Prints the data saved.\n\n" +
			"Examples:\n" +
			"  timbra people employer set 3f2a0c1e-... --registration B5510768108\n" +
			"  timbra people employer set 3f2a0c1e-... --fund-source IP --own-resource-amount 1500.50\n" +
			"  timbra people employer set 3f2a0c1e-... --file employer.json -o json",
		Flags: append(cliFlags(employerFlags),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the employer data as JSON from `PATH` (- for stdin); flags override its fields", TakesFile: true, Destination: &o.File}),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			o.Fields = flagValues(c, employerFlags)
			return run(c, o)
		},
	}
}

func employerSetRun(c *cli.Context, o *employmentSetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	return employmentSet(c, o, employmentSetFlow[api.EmployerInput, api.Employer]{
		noun: "Employer", get: client.GetEmployer, inputOf: employerInputOf, flags: employerFlags,
		self:   func(in *api.EmployerInput, id string) { in.PersonID = &id },
		create: client.CreateEmployer, replace: client.ReplaceEmployer,
		print: func(p *cmdutil.Printer, out api.Employer) error { return p.Fields(out, employerFields(p, out)) },
	})
}

// ---- employee

func newEmployeeCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "employee",
		Usage: "Read, set and delete the employee data of a person (payroll recipients)",
		Description: "A person that receives payroll CFDIs needs employee data: employer, employee number,\n" +
			"social security number, contract, regime, workday, job risk, payment periodicity, state,\n" +
			"seniority and salaries. Only the owner changes the owner's data; anybody of the tenant\n" +
			"changes anybody else's.\n\n" +
			"Examples:\n" +
			"  timbra people employee get 9b1d0c1e-...\n" +
			"  timbra people employee set 9b1d0c1e-... --file employee.json\n" +
			"  timbra people employee set 9b1d0c1e-... --daily-salary 512.40\n" +
			"  timbra people employee delete 9b1d0c1e-... --yes",
		Subcommands: []*cli.Command{
			newEmployeeGetCmd(f, nil),
			newEmployeeSetCmd(f, nil),
			newEmployeeDeleteCmd(f, nil),
		},
	}
}

func employeeFields(e api.Employee) []cmdutil.Field {
	return []cmdutil.Field{
		{Label: "Employee person", Value: e.EmployeePersonID},
		{Label: "Employer person", Value: e.EmployerPersonID},
		{Label: "Employee number", Value: e.EmployeeNumber},
		{Label: "Social security number", Value: e.SocialSecurityNumber},
		{Label: "Start date", Value: e.LaborRelationStartDate},
		{Label: "Seniority", Value: e.Seniority},
		{Label: "Contract type", Value: cmdutil.CatalogText(&e.SatContractTypeID, e.SatContractType)},
		{Label: "Regime type", Value: cmdutil.CatalogText(&e.SatTaxRegimeTypeID, e.SatTaxRegimeType)},
		{Label: "Workday type", Value: cmdutil.CatalogText(&e.SatWorkdayTypeID, e.SatWorkdayType)},
		{Label: "Job risk", Value: cmdutil.CatalogText(&e.SatJobRiskID, e.SatJobRisk)},
		{Label: "Payment periodicity", Value: cmdutil.CatalogText(&e.SatPaymentPeriodicityID, e.SatPaymentPeriodicity)},
		{Label: "Payroll state", Value: cmdutil.CatalogText(&e.SatPayrollStateID, e.SatPayrollState)},
		{Label: "Base salary", Value: string(e.BaseSalaryForContributions)},
		{Label: "Integrated daily salary", Value: string(e.IntegratedDailySalary)},
		{Label: "Bank", Value: cmdutil.CatalogText(e.SatBankID, e.SatBank)},
		{Label: "Bank account", Value: api.Deref(e.BankAccount)},
		{Label: "Unionized", Value: cmdutil.CatalogText(e.SatUnionizedStatusID, e.SatUnionizedStatus)},
		{Label: "Position", Value: api.Deref(e.Position)},
		{Label: "Department", Value: api.Deref(e.Department)},
		{Label: "Subcontractor RFC", Value: api.Deref(e.SubcontractorRfc)},
		{Label: "Time percentage", Value: amountText(e.TimePercentage)},
	}
}

func employeeInputOf(e api.Employee) api.EmployeeInput {
	base, daily := e.BaseSalaryForContributions, e.IntegratedDailySalary
	return api.EmployeeInput{
		EmployerPersonID: &e.EmployerPersonID, EmployeePersonID: &e.EmployeePersonID, EmployeeNumber: &e.EmployeeNumber,
		SocialSecurityNumber: &e.SocialSecurityNumber, LaborRelationStartDate: &e.LaborRelationStartDate,
		SatContractTypeID: &e.SatContractTypeID, SatTaxRegimeTypeID: &e.SatTaxRegimeTypeID, SatWorkdayTypeID: &e.SatWorkdayTypeID,
		SatJobRiskID: &e.SatJobRiskID, SatPaymentPeriodicityID: &e.SatPaymentPeriodicityID, SatPayrollStateID: &e.SatPayrollStateID,
		Seniority: &e.Seniority, BaseSalaryForContributions: &base, IntegratedDailySalary: &daily,
		SatBankID: e.SatBankID, SatUnionizedStatusID: e.SatUnionizedStatusID, Position: e.Position, Department: e.Department,
		BankAccount: e.BankAccount, SubcontractorRfc: e.SubcontractorRfc, TimePercentage: e.TimePercentage,
	}
}

func newEmployeeSetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentSetOptions]) *cli.Command {
	o := &employmentSetOptions{f: f}
	run = cmdutil.OrRun(run, employeeSetRun)
	return &cli.Command{
		Name:      "set",
		Usage:     "Create or change the employee data of a person",
		UsageText: "timbra people employee set PERSON_ID [field flags] [--file data.json] [-o json]",
		ArgsUsage: "PERSON_ID",
		Description: "Creates the person's employee data when it has none, or changes it: the saved data, then\n" +
			"the fields of --file (a JSON object as the API takes it, or as `get -o json` prints it), then\n" +
			"the flags. PERSON_ID is the employee; --employer names the employer person. An empty flag\n" +
			"value clears an optional field. Prints the data saved.\n\n" +
			"Examples:\n" +
			"  timbra people employee set 9b1d0c1e-... --employer 3f2a0c1e-... --employee-number 120 \\\n" +
			"      --social-security-number 04078873454 --start-date 2024-08-18 --contract-type 01 \\\n" +
			"      --regime-type 02 --workday-type 01 --job-risk 1 --payment-periodicity 04 \\\n" +
			"      --payroll-state JAL --seniority P54W --base-salary 2828.50 --daily-salary 0\n" +
			"  timbra people employee set 9b1d0c1e-... --file employee.json -o json\n" +
			"  timbra people employee set 9b1d0c1e-... --bank 002 --bank-account 1234567890",
		Flags: append(cliFlags(employeeFlags),
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the employee data as JSON from `PATH` (- for stdin); flags override its fields", TakesFile: true, Destination: &o.File}),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			o.Fields = flagValues(c, employeeFlags)
			return run(c, o)
		},
	}
}

func employeeSetRun(c *cli.Context, o *employmentSetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	return employmentSet(c, o, employmentSetFlow[api.EmployeeInput, api.Employee]{
		noun: "Employee", get: client.GetEmployee, inputOf: employeeInputOf, flags: employeeFlags,
		self:   func(in *api.EmployeeInput, id string) { in.EmployeePersonID = &id },
		create: client.CreateEmployee, replace: client.ReplaceEmployee,
		print: func(p *cmdutil.Printer, out api.Employee) error { return p.Fields(out, employeeFields(out)) },
	})
}

// employmentSetFlow is what the `set` of employer and employee data differ in.
type employmentSetFlow[In, Out any] struct {
	noun            string // Employer or Employee
	get             func(ctx context.Context, personID string) (Out, error)
	inputOf         func(Out) In
	flags           []employmentFlag[In]
	self            func(in *In, personID string) // the body names the person of the path
	create, replace func(ctx context.Context, personID string, in In) (Out, error)
	print           func(p *cmdutil.Printer, out Out) error
}

// employmentSet starts from the saved data (when there is some), applies --file and then the
// flags, and sends POST when there was none, PUT otherwise.
func employmentSet[In, Out any](c *cli.Context, o *employmentSetOptions, fl employmentSetFlow[In, Out]) error {
	ctx := c.Context
	var in In
	old, err := fl.get(ctx, o.ID)
	exists := err == nil
	if err != nil && !isNotFound(err) {
		return err
	}
	if exists {
		in = fl.inputOf(old)
	}
	if o.File != "" {
		if err := readBodyFile(c, o.File, o.f.IO.In, &in); err != nil {
			return err
		}
	}
	if err := applyFlags(c, fl.flags, o.Fields, &in); err != nil {
		return err
	}
	fl.self(&in, o.ID)
	save := fl.create
	if exists {
		save = fl.replace
	}
	out, err := save(ctx, o.ID, in)
	if err != nil {
		return err
	}
	if err := fl.print(o.f.Printer(), out); err != nil {
		return err
	}
	if !o.f.JSON() {
		fmt.Fprintln(o.f.IO.Err, map[bool]string{true: fl.noun + " data updated.", false: fl.noun + " data created."}[exists])
	}
	return nil
}

// ---- get and delete, for both

type employmentGetOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newEmployerGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentGetOptions]) *cli.Command {
	return newEmploymentGetCmd(f, "employer", cmdutil.OrRun(run, employerGetRun))
}

func newEmployeeGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentGetOptions]) *cli.Command {
	return newEmploymentGetCmd(f, "employee", cmdutil.OrRun(run, employeeGetRun))
}

// newEmploymentGetCmd is the get of the employer or employee data (kind), shown by run.
func newEmploymentGetCmd(f *cmdutil.Factory, kind string, run cmdutil.RunFunc[employmentGetOptions]) *cli.Command {
	o := &employmentGetOptions{f: f}
	return &cli.Command{
		Name:      "get",
		Usage:     "Show the " + kind + " data of a person",
		UsageText: "timbra people " + kind + " get PERSON_ID [-o json]",
		ArgsUsage: "PERSON_ID",
		Description: "Prints the person's " + kind + " data as `label: value` lines, catalog keys with their\n" +
			"descriptions; with -o json, the object as the API answers it.\n\n" +
			"Example:\n" +
			"  timbra people " + kind + " get 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func employerGetRun(c *cli.Context, o *employmentGetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	p := o.f.Printer()
	e, err := client.GetEmployer(c.Context, o.ID)
	if err != nil {
		return err
	}
	return p.Fields(e, employerFields(p, e))
}

func employeeGetRun(c *cli.Context, o *employmentGetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	p := o.f.Printer()
	e, err := client.GetEmployee(c.Context, o.ID)
	if err != nil {
		return err
	}
	return p.Fields(e, employeeFields(e))
}

type employmentDeleteOptions struct {
	f    *cmdutil.Factory
	Kind string // employer or employee
	ID   string
	Yes  bool
}

func newEmployerDeleteCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentDeleteOptions]) *cli.Command {
	return newEmploymentDeleteCmd(f, "employer", run)
}

func newEmployeeDeleteCmd(f *cmdutil.Factory, run cmdutil.RunFunc[employmentDeleteOptions]) *cli.Command {
	return newEmploymentDeleteCmd(f, "employee", run)
}

func newEmploymentDeleteCmd(f *cmdutil.Factory, kind string, run cmdutil.RunFunc[employmentDeleteOptions]) *cli.Command {
	o := &employmentDeleteOptions{f: f, Kind: kind}
	run = cmdutil.OrRun(run, employmentDeleteRun)
	return &cli.Command{
		Name:      "delete",
		Usage:     "Delete the " + kind + " data of a person",
		UsageText: "timbra people " + kind + " delete PERSON_ID [--yes]",
		ArgsUsage: "PERSON_ID",
		Description: "Deletes the person's " + kind + " data; the person stays. On a terminal it asks first;\n" +
			"elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra people " + kind + " delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra people " + kind + " delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --yes",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "delete"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func employmentDeleteRun(c *cli.Context, o *employmentDeleteOptions) error {
	f, id := o.f, o.ID
	client, err := f.Client()
	if err != nil {
		return err
	}
	if !o.Yes {
		if err := cmdutil.Confirm(c.Context, f.IO, "Delete the "+o.Kind+" data of person "+id+"?", "not deleted"); err != nil {
			return err
		}
	}
	del := client.DeleteEmployee
	if o.Kind == "employer" {
		del = client.DeleteEmployer
	}
	if err := del(c.Context, id); err != nil {
		return err
	}
	if f.JSON() {
		return cmdutil.WriteJSON(f.IO.Out, map[string]any{"personId": id, "deleted": true})
	}
	fmt.Fprintf(f.IO.Out, "Deleted the %s data of person %s.\n", o.Kind, id)
	return nil
}
