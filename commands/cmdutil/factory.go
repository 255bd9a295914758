package cmdutil

import (
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
)

// IOStreams are the standard streams a command may use. Commands never touch os.Stdin,
// os.Stdout or os.Stderr directly.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool // stdin is a terminal: a command may prompt
	OutTTY bool // stdout is a terminal: tables, colour, relative times
	ErrTTY bool // stderr is a terminal: colour in diagnostics
}

// ColorOut tells whether stdout may be coloured (a terminal, NO_COLOR unset, TERM not dumb).
func (s *IOStreams) ColorOut() bool { return s.OutTTY && colorAllowed() }

// ColorErr tells whether stderr may be coloured.
func (s *IOStreams) ColorErr() bool { return s.ErrTTY && colorAllowed() }

func colorAllowed() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	return os.Getenv("TERM") != "dumb"
}

// Output formats chosen by --output.
const (
	OutputTable = "table"
	OutputJSON  = "json"
)

// Factory carries what commands share: the streams, the global options and the lazily built API
// client. Global options are filled while the command line is parsed, before any Action runs.
type Factory struct {
	IO *IOStreams

	// Client builds the API client from the profile, keyring and environment on first use.
	Client func() (*api.Client, error)

	Output   string // "table" or "json" (--output)
	TimeZone string // IANA name (--time-zone), sent as X-TIME-ZONE; empty for none
	Profile  string // --profile or TIMBRA_PROFILE; "default" when neither

	// HTTP is the HTTP client given to API clients; nil uses the api package's default.
	HTTP *http.Client
	// Now is the clock used for relative times.
	Now func() time.Time
	// Version is the version of this binary.
	Version string

	profileSource string // where Profile came from, for `timbra config show`

	clientOnce sync.Once
	client     *api.Client
	clientErr  error

	// notFound records an unknown command whose help was asked for.
	notFound error
}

// NewFactory returns a Factory writing to ios for a binary of the version given, with the default
// global options.
func NewFactory(ios *IOStreams, version string) *Factory {
	f := &Factory{IO: ios, Output: OutputTable, Profile: DefaultProfile, profileSource: SrcDefault, Now: time.Now, Version: version}
	f.Client = func() (*api.Client, error) {
		f.clientOnce.Do(func() { f.client, f.clientErr = f.newClient() })
		return f.client, f.clientErr
	}
	return f
}

// JSON tells whether --output json was asked for.
func (f *Factory) JSON() bool { return f.Output == OutputJSON }

func (f *Factory) UserAgent() string { return "timbra/" + f.Version }
