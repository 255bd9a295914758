package webhook

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestReasonMessages(t *testing.T) {
	for r, want := range map[Reason]string{
		ReasonNone:             "",
		ReasonMissing:          "La URL es obligatoria.",
		ReasonTooLong:          "La URL no puede tener más de 2048 caracteres.",
		ReasonNotHTTPS:         "La URL del webhook debe ser https, absoluta y sin usuario ni contraseña.",
		ReasonForbiddenAddress: "La URL del webhook apunta a una dirección no permitida.",
	} {
		if r.Message() != want || r.String() != want {
			t.Errorf("Reason %d: %q, want %q", int(r), r.Message(), want)
		}
	}
}

func TestCheckURLShape(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxURLLength-len("https://example.com/"))
	for _, c := range []struct {
		url  string
		want Reason
	}{
		{"", ReasonMissing},
		{"   ", ReasonMissing},
		{long, ReasonNone},
		{long + "a", ReasonTooLong},
		{"https://example.com/" + strings.Repeat("ñ", MaxURLLength-len("https://example.com/")), ReasonNone},
		// An emoji is two UTF-16 code units, as the service counts.
		{"https://example.com/" + strings.Repeat("😀", (MaxURLLength-len("https://example.com/"))/2+1), ReasonTooLong},
		{"http://example.com/hook", ReasonNotHTTPS},
		{"HTTPS://example.com/hook", ReasonNone},
		{"ftp://example.com/hook", ReasonNotHTTPS},
		{"example.com/hook", ReasonNotHTTPS},
		{"//example.com/hook", ReasonNotHTTPS},
		{"/hook", ReasonNotHTTPS},
		{"https:example.com", ReasonNotHTTPS},
		{"https:///hook", ReasonNotHTTPS},
		{"https://user:pass@example.com/hook", ReasonNotHTTPS},
		{"https://user@example.com/hook", ReasonNotHTTPS},
		{"https://@example.com/hook", ReasonNotHTTPS},
		{"https://example.com:0/hook", ReasonNotHTTPS},
		{"https://example.com:65536/hook", ReasonNotHTTPS},
		{"https://example.com:8443/hook", ReasonNone},
		{"https://exa mple.com/", ReasonNotHTTPS},
		{"https://exa!mple.com/", ReasonNotHTTPS},
		{"https://example..com/", ReasonNotHTTPS},
		{"https://example.com\\@127.0.0.1/", ReasonNotHTTPS},
		{"https://[127.0.0.1]/", ReasonNotHTTPS},
		{"https://[::1/", ReasonNotHTTPS},
		{" https://example.com/hook", ReasonNotHTTPS},
		{"https://example.com/hook\n", ReasonNotHTTPS},
	} {
		ok, got := CheckURL(c.url)
		if got != c.want || ok != (c.want == ReasonNone) {
			t.Errorf("CheckURL(%.60q) = %v, %q; want %q", c.url, ok, got.Message(), c.want.Message())
		}
	}
}

// TestCheckURLSSRF refuses every private, local or reserved address in the forms a resolver
// might read, and accepts ordinary public names and addresses. CheckURL resolves nothing, so
// the test needs no network.
func TestCheckURLSSRF(t *testing.T) {
	refused := []string{
		// loopback
		"https://127.0.0.1/x", "https://127.0.0.1:8443/x", "https://127.255.255.254/x", "https://[::1]/x",
		"https://[0:0:0:0:0:0:0:1]/x",
		// decimal, hex, octal and short forms of 127.0.0.1 and others
		"https://2130706433/", "https://0x7f000001/", "https://0X7F000001/", "https://0x7f.0.0.1/",
		"https://0x7f.0x0.0x0.0x1/", "https://0177.0.0.1/", "https://0177.0000.0000.0001/",
		"https://00000000177.0.0.1/", "https://127.1/", "https://127.0.1/", "https://0x7f.1/",
		"https://017700000001/", "https://3232235521/", "https://0xa9fea9fe/", "https://169.254.43518/",
		"https://0xc0.0xa8.1/", "https://10.1/", "https://0/", "https://0x/", "https://0.0.0.0/",
		// private RFC 1918
		"https://10.0.0.1/x", "https://172.16.0.1/x", "https://172.31.255.255/x", "https://192.168.1.1/x",
		// link-local and cloud metadata
		"https://169.254.169.254/latest/meta-data/", "https://169.254.0.1/", "https://[fe80::1]/",
		"https://[febf::1]/",
		// CGNAT
		"https://100.64.0.1/", "https://100.127.255.254/",
		// unique local, site-local
		"https://[fc00::1]/", "https://[fd12:3456::1]/", "https://[fec0::1]/",
		// multicast, broadcast, reserved, unspecified
		"https://224.0.0.1/", "https://239.255.255.250/", "https://255.255.255.255/", "https://240.0.0.1/",
		"https://[ff02::1]/", "https://[::]/", "https://0.1.2.3/",
		// documentation, benchmarking, IETF assignments
		"https://192.0.0.1/", "https://192.0.2.10/", "https://198.18.0.1/", "https://198.19.255.1/",
		"https://198.51.100.7/", "https://203.0.113.9/", "https://192.88.99.1/", "https://[2001:db8::1]/",
		"https://[3fff::1]/", "https://[2001::1]/", "https://[2001:2::1]/", "https://[100::1]/",
		// IPv6 embedding a refused IPv4: mapped, compatible, NAT64, 6to4
		"https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/", "https://[::ffff:169.254.169.254]/",
		"https://[::ffff:10.0.0.1]/", "https://[0:0:0:0:0:ffff:192.168.0.1]/", "https://[::127.0.0.1]/",
		"https://[64:ff9b::127.0.0.1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[64:ff9b:1::a00:1]/",
		"https://[2002:7f00:1::]/", "https://[2002:c0a8:101::1]/", "https://[2002:a9fe:a9fe::]/",
		// zone ids
		"https://[fe80::1%25eth0]/", "https://[2606:4700::1%25eth0]/",
		// names
		"https://localhost/", "https://LOCALHOST/", "https://localhost:8443/", "https://localhost./",
		"https://api.localhost/", "https://a.b.localhost/", "https://printer.local/", "https://metadata.google.internal/",
		"https://db.internal/", "https://router.home.arpa/", "https://nas.lan/", "https://host.localdomain/",
		"https://example.test/", "https://x.onion/", "https://metadata/", "https://intranet/",
		"https://example.com./", "https://example.com.:443/x",
		// full-width forms an IDNA mapping turns into ASCII
		"https://ｌｏｃａｌｈｏｓｔ/", "https://１２７.０.０.１/", "https://127。0。0。1/", "https://localhost．/",
		"https://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/",
		// ends in a number, not a valid address
		"https://1.2.3.256/", "https://1.2.3.4.5/", "https://4294967296/", "https://0x100000000/",
		"https://example.123/", "https://08.0.0.1/", "https://127.0.0.1./",
	}
	for _, u := range refused {
		ok, r := CheckURL(u)
		if ok || r != ReasonForbiddenAddress {
			t.Errorf("CheckURL(%q) = %v, %q; want refused as a forbidden address", u, ok, r.Message())
		}
	}

	accepted := []string{
		"https://example.com/hook", "https://93.184.216.34/x", "https://93.184.216.34:8443/x",
		"https://8.8.8.8/", "https://1.1.1.1/", "https://134744072/", "https://0x08080808/", "https://8.8.2056/",
		"https://[2606:2800:220:1:248:1893:25c8:1946]/x", "https://[2001:4860:4860::8888]/",
		"https://[::ffff:8.8.8.8]/", "https://[64:ff9b::808:808]/", "https://[2002:808:808::1]/",
		"https://hooks.example.com.mx/cfdi/eventos?x=1#frag", "https://Example.COM/Hook",
		"https://xn--facturacin-6db.mx/", "https://facturación.mx/", "https://my_host.example.com/",
		"https://localhost.example.com/", "https://local.example.com/", "https://172.32.0.1/", "https://100.128.0.1/",
		"https://169.255.0.1/", "https://192.169.0.1/", "https://11.0.0.1/", "https://223.255.255.255/",
		"https://example.localhost.com/",
	}
	for _, u := range accepted {
		if ok, r := CheckURL(u); !ok || r != ReasonNone {
			t.Errorf("CheckURL(%q) = %v, %q; want accepted", u, ok, r.Message())
		}
	}
}

func TestCheckURLAllowList(t *testing.T) {
	p, err := NewPolicy("127.0.0.1/32", "fd00::/8", "::ffff:10.1.0.0/112")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"https://127.0.0.1:8443/hook", true},
		{"https://2130706433:8443/hook", true},
		{"https://[::ffff:127.0.0.1]/", true},
		{"https://localhost:8443/hook", true},
		{"https://api.localhost/", true},
		{"https://[fd00::5]/", true},
		{"https://10.1.2.3/", true},
		{"https://127.0.0.2/", false}, // outside 127.0.0.1/32
		{"https://[::1]/", false},
		{"https://10.2.0.1/", false},
		{"https://169.254.169.254/", false},
		{"https://localhost./", false},
		{"https://[fd00::5%25eth0]/", false},
		{"https://printer.local/", false},
		{"https://0.0.0.0/", false},
		{"https://example.com/", true},
	} {
		ok, r := p.CheckURL(c.url)
		if ok != c.ok || (!ok && r != ReasonForbiddenAddress) {
			t.Errorf("CheckURL(%q) with an allow-list = %v, %q; want %v", c.url, ok, r.Message(), c.ok)
		}
	}
	// ::1 in the allow-list also allows localhost names.
	p6, _ := NewPolicy("::1")
	if ok, _ := p6.CheckURL("https://localhost/"); !ok {
		t.Error("localhost refused with ::1 allowed")
	}
	// Always refused, even when the allow-list covers everything.
	all, _ := NewPolicy("0.0.0.0/0", "::/0")
	for _, u := range []string{"https://0.0.0.0/", "https://[::]/", "https://224.0.0.1/", "https://255.255.255.255/", "https://0.1.2.3/"} {
		if ok, _ := all.CheckURL(u); ok {
			t.Errorf("CheckURL(%q) accepted with 0.0.0.0/0 allowed", u)
		}
	}
	if ok, _ := all.CheckURL("https://10.0.0.1/"); !ok {
		t.Error("10.0.0.1 refused with 0.0.0.0/0 allowed")
	}

	for _, bad := range []string{"", "127.0.0.1/33", "localhost", "fe80::1%eth0", "::ffff:0:0/90"} {
		if _, err := NewPolicy(bad); err == nil {
			t.Errorf("NewPolicy(%q) accepted", bad)
		}
	}
}

func TestParseIPv4(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":      "127.0.0.1",
		"2130706433":     "127.0.0.1",
		"0x7f000001":     "127.0.0.1",
		"0x7f.0.0.1":     "127.0.0.1",
		"0177.0.0.1":     "127.0.0.1",
		"127.1":          "127.0.0.1",
		"127.0.1":        "127.0.0.1",
		"0x7f.1":         "127.0.0.1",
		"192.168.257":    "192.168.1.1",
		"0":              "0.0.0.0",
		"0x":             "0.0.0.0",
		"4294967295":     "255.255.255.255",
		"0xffffffff":     "255.255.255.255",
		"037777777777":   "255.255.255.255",
		"1.16777215":     "1.255.255.255",
		"000000000000.1": "0.0.0.1",
	} {
		a, ok := parseIPv4(in)
		if !ok || a != netip.MustParseAddr(want) {
			t.Errorf("parseIPv4(%q) = %v, %v; want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"", ".", "1.2.3.4.5", "256.0.0.1", "1.2.3.256", "1.2.65536", "1.16777216",
		"4294967296", "08", "0x1g", "1..2", "-1", "+1", "1_0", "0x7f.0.0.1.", " 1"} {
		if a, ok := parseIPv4(in); ok {
			t.Errorf("parseIPv4(%q) = %v, want invalid", in, a)
		}
	}
}

// FuzzCheckURL: CheckURL never panics; what it accepts is an absolute https URL without user
// information whose host, when an address, the connect-time guard would also accept.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/hook", "https://0x7f.1/", "https://[::ffff:127.0.0.1]/", "https://localhost./",
		"https://[fe80::1%25eth0]/", "https://１２７.０.０.１/", "http://x", "", "https://a.b.c.d.e/",
		"https://0177.0.0.1:8443/x?y#z", "https://user@host/", "https://ｅｘａｍｐｌｅ．ｃｏｍ/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ok, r := CheckURL(raw)
		if ok != (r == ReasonNone) {
			t.Fatalf("CheckURL(%q) = %v, %v", raw, ok, r)
		}
		if !ok {
			if r.Message() == "" {
				t.Fatalf("CheckURL(%q): reason %d without a message", raw, r)
			}
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			t.Fatalf("CheckURL(%q) accepted %+v (%v)", raw, u, err)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && !(Policy{}).AddrAllowed(a) {
			t.Fatalf("CheckURL(%q) accepted an address the guard refuses", raw)
		}
		if a, ok := parseIPv4(u.Hostname()); ok && !(Policy{}).AddrAllowed(a) {
			t.Fatalf("CheckURL(%q) accepted an IPv4 form the guard refuses", raw)
		}
	})
}

// TestCheckURLPlainHTTPLoopback: with PlainHTTPLoopback (the test environment), http:// is
// taken for allow-listed loopback hosts only; without it, or to any other host, http is the
// spec's https refusal; a loopback host the allow-list lacks is the address refusal.
func TestCheckURLPlainHTTPLoopback(t *testing.T) {
	p, err := NewPolicy("127.0.0.1/32", "::1", "10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := NewPolicy("10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	p.PlainHTTPLoopback, narrow.PlainHTTPLoopback = true, true
	for _, c := range []struct {
		p    Policy
		raw  string
		want Reason
	}{
		{p, "http://127.0.0.1:3000/hooks", ReasonNone},
		{p, "http://[::1]:3000/hooks", ReasonNone},
		{p, "http://localhost:3000/hooks", ReasonNone},
		{p, "http://api.localhost/hooks", ReasonNone},
		{p, "https://127.0.0.1/hooks", ReasonNone},
		{p, "http://10.1.2.3/hooks", ReasonNotHTTPS}, // allow-listed, not loopback
		{p, "http://example.com/hooks", ReasonNotHTTPS},
		{p, "http://user:pw@127.0.0.1/hooks", ReasonNotHTTPS},
		{p, "ftp://127.0.0.1/hooks", ReasonNotHTTPS},
		{narrow, "http://127.0.0.1:3000/hooks", ReasonForbiddenAddress},
		{narrow, "http://localhost/hooks", ReasonForbiddenAddress},
		{Policy{AllowCIDRs: p.AllowCIDRs}, "http://127.0.0.1:3000/hooks", ReasonNotHTTPS}, // production
	} {
		if ok, reason := c.p.CheckURL(c.raw); ok != (c.want == ReasonNone) || reason != c.want {
			t.Errorf("CheckURL(%q) = %v, %v; want %v", c.raw, ok, reason, c.want)
		}
	}
}
