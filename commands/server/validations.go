package server

import (
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/urfave/cli/v2"
)

// validationFlags are the sources of the production SAT validations of `timbra server`
// (spec 3 §4.7). The test environment answers fictitious results and reads none of them, but a
// wrong path stops the server in both, so that a configuration is right before it matters.
type validationFlags struct {
	stampTrust          cli.StringSlice
	list69B, list69BBis string
	statusURL           string
}

func (v *validationFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "stamp-trust", EnvVars: []string{"TIMBRA_STAMP_TRUST"}, Destination: &v.stampTrust,
			Usage: "`DIR` of stamping certificates (.cer, SAT's published ones) whose SelloSAT sat.tfd.sello trusts, besides the server's own (repeatable)"},
		&cli.StringFlag{Name: "list-69b", EnvVars: []string{"TIMBRA_LIST_69B"}, Destination: &v.list69B,
			Usage: "CSV `FILE` of SAT's article 69-B list (a column RFC, optionally Situación), read at start; without it sat.blacklist.69b answers NoDisponible"},
		&cli.StringFlag{Name: "list-69bbis", EnvVars: []string{"TIMBRA_LIST_69BBIS"}, Destination: &v.list69BBis,
			Usage: "CSV `FILE` of SAT's article 69-B Bis list, as --list-69b"},
		&cli.StringFlag{Name: "cfdi-status-url", EnvVars: []string{"TIMBRA_CFDI_STATUS_URL"}, Destination: &v.statusURL,
			Usage: "`URL` of a ConsultaCFDIService (SAT's SOAP service, or one that answers alike) for sat.cfdi.status of CFDIs other providers stamped (the server answers for its own); without it NoDisponible"},
	}
}

func (v *validationFlags) config() validations.Config {
	return validations.Config{
		StampTrustDirs: v.stampTrust.Value(),
		List69B:        v.list69B,
		List69BBis:     v.list69BBis,
		StatusURL:      v.statusURL,
	}
}
