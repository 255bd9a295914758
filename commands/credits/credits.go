package credits

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra credits`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "credits",
		Usage: "Move stamps and other credits between the people of your tenant, and list their movements",
		Description: "Credits are stamps (type 1, one per stamped CFDI), validation credits (type 2) and ticket\n" +
			"credits (type 3). The tenant's owner moves them between its people; to withdraw, transfer\n" +
			"back. See a person's balances with `timbra people get ID`.\n\n" +
			"Examples:\n" +
			"  timbra credits transfer --from 3f2a0c1e-... --to 9b1d4e7a-... --amount 100\n" +
			"  timbra credits transfer --from 9b1d4e7a-... --to 3f2a0c1e-... --amount 5 --type validation\n" +
			"  timbra credits history",
		Subcommands: []*cli.Command{newTransferCmd(f, nil), newHistoryCmd(f, nil)},
	}
}

type transferOptions struct {
	f          *cmdutil.Factory
	From, To   string
	Amount     int64
	Comments   *string
	CreditType *int
}

func newTransferCmd(f *cmdutil.Factory, run cmdutil.RunFunc[transferOptions]) *cli.Command {
	o := &transferOptions{f: f}
	run = cmdutil.OrRun(run, transferRun)
	return &cli.Command{
		Name:      "transfer",
		Usage:     "Move credits of one type from one person to another (owner only)",
		UsageText: "timbra credits transfer --from ID --to ID --amount N [--type stamps|validation|tickets] [--comments TEXT] [-o json]",
		Description: "Takes N credits from the --from person and gives them to the --to person, both of your\n" +
			"tenant, in one step: either both balances change or neither. Stamps unless --type says\n" +
			"otherwise. Only the tenant's owner may transfer. Prints both people's balances of that\n" +
			"type afterwards; with -o json, an object with the transfer and both balances.\n\n" +
			"Examples:\n" +
			"  timbra credits transfer --from 3f2a0c1e-... --to 9b1d4e7a-... --amount 100 --comments \"March\"\n" +
			"  timbra credits transfer --from 9b1d4e7a-... --to 3f2a0c1e-... --amount 20 --type validation -o json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "person `ID` the credits come from (required)", Destination: &o.From},
			&cli.StringFlag{Name: "to", Usage: "person `ID` the credits go to (required)", Destination: &o.To},
			&cli.StringFlag{Name: "amount", Usage: "whole number `N` of credits (required)"},
			&cli.StringFlag{Name: "type", Usage: "credit `TYPE`: stamps (1), validation (2) or tickets (3)", DefaultText: "stamps"},
			&cli.StringFlag{Name: "comments", Usage: "note `TEXT`, up to 100 characters"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			o.From, o.To = strings.TrimSpace(o.From), strings.TrimSpace(o.To)
			switch {
			case o.From == "":
				return cmdutil.UsageErrorf(c, "missing flag --from")
			case o.To == "":
				return cmdutil.UsageErrorf(c, "missing flag --to")
			case !c.IsSet("amount"):
				return cmdutil.UsageErrorf(c, "missing flag --amount")
			}
			n, err := strconv.ParseInt(strings.TrimSpace(c.String("amount")), 10, 64)
			if err != nil {
				return cmdutil.UsageErrorf(c, "invalid value %q for --amount: give a whole number of credits", c.String("amount"))
			}
			o.Amount = n
			if c.IsSet("type") {
				t, ok := parseCreditType(c.String("type"))
				if !ok {
					return cmdutil.UsageErrorf(c, "invalid value %q for --type: use stamps (1), validation (2) or tickets (3)", c.String("type"))
				}
				o.CreditType = &t
			}
			if c.IsSet("comments") {
				s := c.String("comments")
				o.Comments = &s
			}
			return run(c, o)
		},
	}
}

// parseCreditType reads a credit type by number or name.
func parseCreditType(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "stamps", "stamp":
		return api.CreditStamps, true
	case "2", "validation", "validations":
		return api.CreditValidation, true
	case "3", "tickets", "ticket":
		return api.CreditTickets, true
	}
	return 0, false
}

// transferResult is what `credits transfer -o json` prints.
type transferResult struct {
	FromPersonID string         `json:"fromPersonId"`
	ToPersonID   string         `json:"toPersonId"`
	CreditType   int            `json:"creditType"`
	Amount       int64          `json:"amount"`
	From         *personBalance `json:"from"`
	To           *personBalance `json:"to"`
}

// personBalance is one person's balance of the credit type moved.
type personBalance struct {
	PersonID  string  `json:"personId"`
	Email     string  `json:"email"`
	Available float64 `json:"available"`
}

func transferRun(c *cli.Context, o *transferOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	in := api.StampTransfer{FromPersonID: o.From, ToPersonID: o.To, Amount: float64(o.Amount), Comments: o.Comments, CreditType: o.CreditType}
	if err := client.TransferCredits(ctx, in); err != nil {
		return err
	}
	ct := api.CreditStamps
	if o.CreditType != nil {
		ct = *o.CreditType
	}
	res := transferResult{FromPersonID: o.From, ToPersonID: o.To, CreditType: ct, Amount: o.Amount}
	ios := o.f.IO
	if ios.OutTTY && !o.f.JSON() {
		fmt.Fprintf(ios.Err, "Transferred %d %s credits from %s to %s.\n", o.Amount, cmdutil.CreditTypeName(ct), o.From, o.To)
	}
	// the transfer is done; balances are read after it, and a failure to read them is only told
	rows := [][]string{}
	for _, side := range []struct {
		id  string
		out **personBalance
	}{{o.From, &res.From}, {o.To, &res.To}} {
		p, err := client.GetPerson(ctx, side.id)
		if err != nil {
			ios.Warn(fmt.Sprintf("Transferred, but the balance of %s could not be read: %v", side.id, err))
			continue
		}
		b := &personBalance{PersonID: p.ID, Email: p.Email}
		for _, x := range p.Balances {
			if x.CreditType == ct {
				b.Available = x.Available
			}
		}
		*side.out = b
		rows = append(rows, []string{p.ID, p.Email, cmdutil.CreditTypeName(ct), cmdutil.FormatAmount(b.Available)})
	}
	return o.f.Printer().Table(res, []string{"PERSON", "EMAIL", "TYPE", "AVAILABLE"}, rows, "")
}

type historyOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
}

func newHistoryCmd(f *cmdutil.Factory, run cmdutil.RunFunc[historyOptions]) *cli.Command {
	o := &historyOptions{f: f}
	run = cmdutil.OrRun(run, historyRun)
	return &cli.Command{
		Name:      "history",
		Usage:     "List the movements of credits: grants, transfers and what was used, with the balances after each",
		UsageText: "timbra credits history [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of movements in the order they happened (1 to 50 per page, 10 by default):\n" +
			"number, kind (grant, transfer, used, ticket, given back), credit type, amount, from and to with\n" +
			"their balances after it, the invoice or ticket it was used for and the comment. The owner sees\n" +
			"every movement of the tenant, another person those of its own credits.\n\n" +
			"Examples:\n" +
			"  timbra credits history\n" +
			"  timbra credits history --page 3 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "movements", 50, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

// movementKinds are the names of the transaction types (the official client's
// StampTransactionType).
var movementKinds = map[int]string{1: "grant", 2: "transfer", 3: "used", 4: "ticket", 5: "given back"}

// side is one person of a movement with its balance after it: "3f2a… (993)".
func side(u *api.UserLookup, balance *int64) string {
	if u == nil {
		return ""
	}
	s := u.ID
	if u.Tin != "" {
		s += " " + u.Tin
	}
	if balance != nil {
		s += " (" + strconv.FormatInt(*balance, 10) + ")"
	}
	return s
}

func historyRun(c *cli.Context, o *historyOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	out, err := client.ListStampTransactions(c.Context, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(out.Items))
	for _, t := range out.Items {
		kind := movementKinds[t.TransactionType]
		if kind == "" {
			kind = strconv.Itoa(t.TransactionType)
		}
		rows = append(rows, []string{strconv.FormatInt(t.Consecutive, 10), p.Time(t.CreatedAt), kind, cmdutil.CreditTypeName(t.CreditType),
			strconv.FormatInt(t.Amount, 10), side(t.FromPerson, t.FromBalance), side(t.ToPerson, t.ToBalance), api.Deref(t.ReferenceID),
			cmdutil.OneLine(api.Deref(t.Comments))})
	}
	if err := p.Table(out, []string{"#", "WHEN", "KIND", "TYPE", "AMOUNT", "FROM (AFTER)", "TO (AFTER)", "FOR", "COMMENT"}, rows, "No credit movements."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "movements")
	return nil
}
