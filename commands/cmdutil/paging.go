package cmdutil

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// PagingOptions are the --page and --page-size of a list command.
type PagingOptions struct {
	Page     int
	PageSize int
}

// PagingFlags are --page and --page-size for a list of what (people, rules…): max is the most a
// page holds (0: not said), def the size used when none is given ("": the server's).
func PagingFlags(o *PagingOptions, what string, max int, def string) []cli.Flag {
	usage := "`N` " + what + " per page"
	if max > 0 {
		usage += fmt.Sprintf(" (1 to %d)", max)
	}
	if def == "" {
		def = "the server's"
	}
	return []cli.Flag{
		&cli.IntFlag{Name: "page", Usage: "page number `N`, from 1", Value: 1, Destination: &o.Page},
		&cli.IntFlag{Name: "page-size", Usage: usage, DefaultText: def, Destination: &o.PageSize},
	}
}

// Check refuses a page below 1, and a page size of 0 or less; with max > 0, above max too.
func (o *PagingOptions) Check(c *cli.Context, max int) error {
	if o.Page < 1 {
		return UsageErrorf(c, "invalid value %d for --page: pages start at 1", o.Page)
	}
	if max > 0 && c.IsSet("page-size") && (o.PageSize < 1 || o.PageSize > max) {
		return UsageErrorf(c, "invalid value %d for --page-size: give 1 to %d", o.PageSize, max)
	}
	if o.PageSize < 0 || (c.IsSet("page-size") && o.PageSize == 0) {
		return UsageErrorf(c, "invalid value %d for --page-size: give a positive number", o.PageSize)
	}
	return nil
}

// PageFooter tells on a terminal which page of how many was shown.
func PageFooter(f *Factory, page, pages, total int, what string) {
	if f.IO.OutTTY && !f.JSON() && pages > 1 {
		fmt.Fprintf(f.IO.Err, "Page %d of %d (%d %s).\n", page, pages, total, what)
	}
}
