package listen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/tui"
)

// listenTUI runs the session under the live terminal view: the listener's callbacks feed the
// program, and quitting the view ends the session (with no error). It returns the session's
// error when the session ends by itself (replaced, refused).
func listenTUI(ctx context.Context, o *listenOptions, client *api.Client, lc *listener.Client, l *listenPrinter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := tui.ListenOptions{
		BaseURL:   client.BaseURL,
		Session:   o.Session,
		ForwardTo: firstURL(l.routes),
		Routes:    routeTexts(l.routes),
		Header:    o.Headers.h,
		Events:    o.Events,
		Location:  l.loc,
		Resend: func(id string) tea.Cmd {
			return func() tea.Msg {
				session := o.Session
				res, err := client.ResendEvent(ctx, id, api.EventResend{ListenerSession: &session})
				return tui.ResendResultMsg{EventID: id, DeliveryID: res.DeliveryID, Err: err}
			}
		},
		Copy: func(text string) error {
			// OSC 52 on stderr, which the renderer does not write to.
			termenv.NewOutput(os.Stderr).Copy(text)
			return nil
		},
	}
	if len(lc.Routes) > 0 {
		opts.CheckTarget = func() error {
			var errs []error
			for _, d := range checkRoutes(ctx, lc.Routes) {
				if len(lc.Routes) == 1 {
					return d.err
				}
				errs = append(errs, fmt.Errorf("%s: %w", d.url, d.err))
			}
			return errors.Join(errs...)
		}
	}
	p := tea.NewProgram(tui.NewListen(opts), tea.WithContext(ctx), tea.WithInput(o.f.IO.In),
		tea.WithOutput(o.f.IO.Out), tea.WithAltScreen())
	lc.OnReady = func(r listener.Ready, reconnected bool) error {
		l.connected, l.webhookID, l.secret = true, r.WebhookID, r.Secret
		p.Send(tui.ReadyMsg{Ready: r, Reconnected: reconnected})
		return nil
	}
	lc.OnReceived = func(r listener.EventResult) { p.Send(tui.EventMsg(r)) }
	lc.OnEvent = func(r listener.EventResult) { p.Send(tui.EventMsg(r)) }
	lc.OnDisconnect = func(err error, retryIn time.Duration, attempt int) {
		p.Send(tui.DisconnectMsg{Err: err, RetryIn: retryIn, Attempt: attempt})
	}
	runErr := make(chan error, 1)
	go func() {
		err := lc.Run(ctx)
		runErr <- err
		if err != nil && ctx.Err() == nil {
			p.Quit() // the session ended by itself: say why after leaving the view
		}
	}()
	_, perr := p.Run()
	cancel()
	err := <-runErr
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		return err
	case perr != nil && !errors.Is(perr, tea.ErrProgramKilled) && !errors.Is(perr, tea.ErrInterrupted) && !errors.Is(perr, context.Canceled):
		return perr
	}
	return nil
}

// firstURL is the first route's URL; "" without a route.
func firstURL(routes []listenRoute) string {
	if len(routes) == 0 {
		return ""
	}
	return routes[0].URL
}

// routeTexts are the routes for the view: each URL, with the types it takes.
func routeTexts(routes []listenRoute) []string {
	out := make([]string, len(routes))
	for i := range routes {
		out[i] = routesText(routes[i : i+1])
	}
	return out
}
