// Package browser proves the portal's web pages in a real browser: Debian's chromium, driven
// by chromedp from go test, against a timbra server started in the test. Without chromium the
// tests skip on a developer's machine and fail in CI (CI set): install it with
// `apt-get install -y chromium` (.ci/run does). Screenshots of every page at a phone's and a
// desktop's size go to screenshots/ beside this file (ignored by git; the log names the folder).
package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/tickets"
)

// chromiumPath is the browser: $TIMBRA_CHROMIUM, else chromium on the PATH (Debian's
// /usr/bin/chromium).
func chromiumPath(t *testing.T) string {
	t.Helper()
	names := []string{"chromium", "/usr/bin/chromium"}
	if p := os.Getenv("TIMBRA_CHROMIUM"); p != "" {
		names = []string{p}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed: the portal's browser tests need it (Debian: apt-get install -y chromium; or set TIMBRA_CHROMIUM)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// screen is a browser window's size.
type screen struct {
	name          string
	width, height int64
	mobile        bool
}

var (
	phone   = screen{"telefono", 390, 844, true}
	desktop = screen{"escritorio", 1280, 900, false}
)

// session is one browser with its own profile and download folder.
type session struct {
	t         *testing.T
	ctx       context.Context
	downloads string
	screen    screen
	shots     string
}

func newSession(t *testing.T, sc screen) *session {
	t.Helper()
	path := chromiumPath(t)
	// the profile: removed at the end, whatever the browser's last writes leave (not t.TempDir,
	// whose cleanup fails when a closing browser still writes there)
	profile, err := os.MkdirTemp("", "timbra-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(profile) })
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(int(sc.width), int(sc.height)),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	s := &session{t: t, ctx: ctx, downloads: t.TempDir(), screen: sc, shots: screenshots(t)}
	emulate := chromedp.EmulateViewport(sc.width, sc.height)
	if sc.mobile {
		emulate = chromedp.EmulateViewport(sc.width, sc.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	// every script error and every console error but the network's (a problem page's own
	// status, the absent favicon) fails the test: a Content-Security-Policy violation is one
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			t.Errorf("script error: %s", e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError && e.Entry.Source != cdplog.SourceNetwork {
				t.Errorf("console error (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
			}
		}
	})
	s.run(cdplog.Enable(), runtime.Enable(), emulate,
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllowAndName).WithDownloadPath(s.downloads).WithEventsEnabled(true))
	return s
}

// screenshots is the folder of the screenshots (made once; the log says where).
func screenshots(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("screenshots")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (s *session) run(actions ...chromedp.Action) {
	s.t.Helper()
	if err := chromedp.Run(s.ctx, actions...); err != nil {
		s.t.Fatal(err)
	}
}

// shot saves a screenshot of the whole page as screenshots/<page>-<screen>.png.
func (s *session) shot(page string) {
	s.t.Helper()
	var png []byte
	s.run(chromedp.FullScreenshot(&png, 100))
	p := filepath.Join(s.shots, page+"-"+s.screen.name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("screenshot %s", p)
}

func (s *session) text(sel string) string {
	s.t.Helper()
	var out string
	s.run(chromedp.Text(sel, &out, chromedp.ByQuery))
	return strings.TrimSpace(out)
}

func (s *session) value(sel string) string {
	s.t.Helper()
	var out string
	s.run(chromedp.Value(sel, &out, chromedp.ByQuery))
	return out
}

// options are the values a select offers now.
func (s *session) options(sel string) string {
	s.t.Helper()
	var out []string
	s.run(chromedp.Evaluate(`Array.from(document.querySelectorAll("`+sel+` option")).map(o => o.value).filter(v => v)`, &out))
	return strings.Join(out, " ")
}

// retype empties a field and types text into it, as a person would (input events).
func retype(sel, text string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.Evaluate(`document.querySelector("`+sel+`").value = ""`, nil),
		chromedp.SendKeys(sel, text, chromedp.ByQuery),
	}
}

// fill types the customer's data into the form.
func (s *session) fill(number, total, tin, name, zip, regime, use, email string) {
	s.t.Helper()
	s.run(
		retype("#number", number),
		retype("#total", total),
		retype("#tin", tin),
		retype("#legalName", name),
		retype("#zipCode", zip),
		chromedp.SetValue("#taxRegimeCode", regime, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("taxRegimeCode").dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue("#cfdiUseCode", use, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("cfdiUseCode").dispatchEvent(new Event("change"))`, nil),
		retype("#email", email),
	)
}

// download clicks a link and waits for the file; it answers the file's bytes.
func (s *session) download(sel string) []byte {
	s.t.Helper()
	done := make(chan string, 1)
	lctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	chromedp.ListenTarget(lctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	s.run(chromedp.Click(sel, chromedp.ByQuery))
	select {
	case guid := <-done:
		b, err := os.ReadFile(filepath.Join(s.downloads, guid))
		if err != nil {
			s.t.Fatal(err)
		}
		return b
	case <-time.After(30 * time.Second):
		s.t.Fatalf("%s: no download", sel)
		return nil
	}
}

// TestPortalInTheBrowser: on a phone and on a desktop, a customer opens the portal, sees the
// page check what they type (the server's texts) and narrow the regimes and uses to their RFC,
// reloads without losing what they typed, invoices a ticket, is told it was e-mailed, and
// downloads the PDF and the XML (which parses, and whose UUID is the page's); then meets each
// problem's page: a ticket not found, one invoiced to another RFC, one out of its window, a
// portal that does not invoice, and a previous name that redirects.
func TestPortalInTheBrowser(t *testing.T) {
	chromiumPath(t)
	sh := startShop(t)
	old := time.Now().In(cfdi.Mexico).AddDate(0, -2, 0)
	for _, sc := range []screen{phone, desktop} {
		t.Run(sc.name, func(t *testing.T) {
			number := "V-" + strings.ToUpper(sc.name[:3])
			sh.ticket(t, number, recent())
			sh.ticket(t, "VENCIDO-"+strings.ToUpper(sc.name[:3]), old)
			s := newSession(t, sc)
			s.run(chromedp.Navigate(sh.url+"/portal/"+portalName), chromedp.WaitVisible("#factura", chromedp.ByQuery))
			if got := s.text(".shop"); got != shopLegalName {
				t.Fatalf("shop name %q", got)
			}
			var lang, privacy string
			s.run(chromedp.Evaluate(`document.documentElement.lang`, &lang),
				chromedp.AttributeValue(".privacy a", "href", &privacy, nil, chromedp.ByQuery))
			if lang != "es" || privacy != "https://papeleria.example/aviso-de-privacidad" {
				t.Fatalf("lang %q, privacy notice %q", lang, privacy)
			}
			s.shot("formulario")

			// as the customer types: the RFC's text is the server's; the choices follow the RFC
			s.run(chromedp.SendKeys("#tin", "eku900317", chromedp.ByQuery), chromedp.Focus("#legalName", chromedp.ByQuery))
			if got, want := s.text("#tin-error"), fmt.Sprintf(cfdi.MsgRFCFormat, "EKU900317"); got != want {
				t.Fatalf("RFC as typed: %q, want %q", got, want)
			}
			s.run(chromedp.SendKeys("#total", "39,00", chromedp.ByQuery), chromedp.Focus("#zipCode", chromedp.ByQuery),
				chromedp.SendKeys("#zipCode", "425", chromedp.ByQuery), chromedp.Focus("#email", chromedp.ByQuery))
			if got, want := s.text("#total-error"), fmt.Sprintf(tickets.MsgTotalFormat, "39,00"); got != want {
				t.Fatalf("total: %q, want %q", got, want)
			}
			if got, want := s.text("#zipCode-error"), fmt.Sprintf(invoices.MsgZipCode, "425"); got != want {
				t.Fatalf("zip: %q, want %q", got, want)
			}
			s.shot("formulario-errores")
			s.run(chromedp.SendKeys("#tin", "3C9", chromedp.ByQuery)) // EKU9003173C9: a company
			if got := s.options("#taxRegimeCode"); got != "601 626" {
				t.Fatalf("a company's regimes: %q", got)
			}
			if got := s.text("#tin-error"); got != "" {
				t.Fatalf("a valid RFC still has an error: %q", got)
			}
			s.run(retype("#tin", "CAUN800101AB1"))
			if got := s.options("#taxRegimeCode"); got != "605 616 626" {
				t.Fatalf("a person's regimes: %q (RFC %q)", got, s.value("#tin"))
			}
			s.run(chromedp.SetValue("#taxRegimeCode", "605", chromedp.ByQuery),
				chromedp.Evaluate(`document.getElementById("taxRegimeCode").dispatchEvent(new Event("change"))`, nil))
			if got := s.options("#cfdiUseCode"); got != "CN01 CP01 S01" {
				t.Fatalf("uses of regime 605: %q", got)
			}

			// the form survives a reload with what was typed
			s.fill(number, "39.00", "EKU9003173C9", shopLegalName, "42501", "601", "G01", "cliente@example.com")
			s.run(chromedp.Reload(), chromedp.WaitVisible("#factura", chromedp.ByQuery))
			for sel, want := range map[string]string{"#number": number, "#total": "39.00", "#tin": "EKU9003173C9", "#zipCode": "42501",
				"#taxRegimeCode": "601", "#cfdiUseCode": "G01", "#email": "cliente@example.com"} {
				if got := s.value(sel); got != want {
					t.Fatalf("after a reload %s = %q, want %q", sel, got, want)
				}
			}

			// invoice
			before := len(sh.sink.Messages())
			s.run(chromedp.Click("button[type=submit]", chromedp.ByQuery), chromedp.WaitVisible("#listo", chromedp.ByQuery))
			uuid := s.text("#uuid")
			if !strings.Contains(s.text("#enviada"), "cliente@example.com") || len(sh.sink.Messages()) != before+1 {
				t.Fatalf("not said or not e-mailed: %q, %d messages", s.text("#enviada"), len(sh.sink.Messages()))
			}
			s.shot("factura-lista")
			pdf := s.download("#pdf")
			xml := s.download("#xml")
			doc, err := cfdi.Parse(xml)
			if err != nil || doc.TFD() == nil || doc.TFD().UUID != uuid || doc.Receptor.Rfc != "EKU9003173C9" || doc.Receptor.UsoCFDI != "G01" {
				t.Fatalf("the XML downloaded: %v (page UUID %s)", err, uuid)
			}
			if !strings.HasPrefix(string(pdf), "%PDF-") {
				t.Fatalf("the PDF downloaded starts %q", pdf[:min(len(pdf), 8)])
			}

			// the problems' pages
			problem := func(shotName, number, total, tin, regime, use, heading string) {
				t.Helper()
				s.run(chromedp.Navigate(sh.url+"/portal/"+portalName), chromedp.WaitVisible("#factura", chromedp.ByQuery))
				s.fill(number, total, tin, "CLIENTE", "42501", regime, use, "")
				s.run(chromedp.Click("button[type=submit]", chromedp.ByQuery), chromedp.WaitVisible("#problema", chromedp.ByQuery))
				if got := s.text("#problema"); got != heading {
					t.Fatalf("%s: heading %q, want %q (%s)", shotName, got, heading, s.text("#mensaje"))
				}
				s.shot(shotName)
			}
			problem("ticket-no-encontrado", "NO-EXISTE", "39.00", "EKU9003173C9", "601", "G01", "No encontramos tu ticket")
			problem("ticket-facturado", number, "39.00", "CAUN800101AB1", "616", "S01", "Este ticket ya fue facturado")
			problem("ticket-vencido", "VENCIDO-"+strings.ToUpper(sc.name[:3]), "39.00", "EKU9003173C9", "601", "G01", "El plazo para facturar este ticket terminó")

			s.run(chromedp.Navigate(sh.url+"/portal/"+notOffered), chromedp.WaitVisible("#problema", chromedp.ByQuery))
			if got := s.text("#mensaje"); got != tickets.MsgNotOffered {
				t.Fatalf("not offered: %q", got)
			}
			s.shot("sin-facturacion")

			var loc string
			s.run(chromedp.Navigate(sh.url+"/portal/"+previousName), chromedp.WaitVisible("#factura", chromedp.ByQuery), chromedp.Location(&loc))
			if loc != sh.url+"/portal/"+portalName {
				t.Fatalf("the previous name led to %s", loc)
			}
		})
	}
}

// TestPortalByKeyboard: a customer who uses only the keyboard reaches every field in order with
// Tab, types, chooses the regime and use by typing in the lists, and sends with Enter.
func TestPortalByKeyboard(t *testing.T) {
	chromiumPath(t)
	sh := startShop(t)
	sh.ticket(t, "TECLADO-1", recent())
	s := newSession(t, desktop)
	s.run(chromedp.Navigate(sh.url+"/portal/"+portalName), chromedp.WaitVisible("#factura", chromedp.ByQuery))
	focused := func() string {
		var id string
		s.run(chromedp.Evaluate(`document.activeElement.id || document.activeElement.className || document.activeElement.tagName`, &id))
		return id
	}
	tab := func(want string) {
		t.Helper()
		s.run(chromedp.KeyEvent("\t"))
		if got := focused(); got != want {
			t.Fatalf("Tab reached %q, want %q", got, want)
		}
	}
	tab("skip")
	tab("A") // the privacy notice's link
	for _, f := range []struct{ id, keys string }{
		{"number", "teclado-1"}, {"total", "39"}, {"tin", "eku9003173c9"}, {"legalName", shopLegalName}, {"zipCode", "42501"},
		{"taxRegimeCode", "601"}, {"cfdiUseCode", "G01"}, {"email", ""},
	} {
		tab(f.id)
		if f.keys != "" {
			s.run(chromedp.KeyEvent(f.keys))
		}
	}
	if got, got2 := s.value("#taxRegimeCode"), s.value("#cfdiUseCode"); got != "601" || got2 != "G01" {
		t.Fatalf("chosen by keyboard: %q %q", got, got2)
	}
	tab("primary")
	s.shot("teclado")
	s.run(chromedp.KeyEvent("\r"), chromedp.WaitVisible("#listo", chromedp.ByQuery))
	if s.text("#uuid") == "" {
		t.Fatal("no UUID")
	}
	tab("skip")
}
