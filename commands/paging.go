package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// pagingOptions are the --page and --page-size of a list command.
type pagingOptions struct {
	Page     int
	PageSize int
}

// pagingFlags are --page and --page-size for a list of what (people, rules…): max is the most a
// page holds (0: not said), def the size used when none is given ("": the server's).
func pagingFlags(o *pagingOptions, what string, max int, def string) []cli.Flag {
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

// check refuses a page below 1, and a page size of 0 or less; with max > 0, above max too.
func (o *pagingOptions) check(c *cli.Context, max int) error {
	if o.Page < 1 {
		return usageErrorf(c, "invalid value %d for --page: pages start at 1", o.Page)
	}
	if max > 0 && c.IsSet("page-size") && (o.PageSize < 1 || o.PageSize > max) {
		return usageErrorf(c, "invalid value %d for --page-size: give 1 to %d", o.PageSize, max)
	}
	if o.PageSize < 0 || (c.IsSet("page-size") && o.PageSize == 0) {
		return usageErrorf(c, "invalid value %d for --page-size: give a positive number", o.PageSize)
	}
	return nil
}
